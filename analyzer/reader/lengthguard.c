#include "lengthguard.h"

#include <babeltrace2/babeltrace.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>

/* Per thread: the reader may decode several groups of traces at once, each
 * in its own thread with its own largest packet. */
static _Thread_local struct {
    uint64_t max_bits; /* 0: no guard */
    bool refused;
    uint64_t length, element_bits;
} guard;

void lengthguard_begin(uint64_t max_bits)
{
    guard.max_bits = max_bits;
    guard.refused = false;
}

/* What was refused, as a line for the user. */
static void refused_note(char *note, size_t n)
{
    snprintf(note, n,
             "a dynamic array of %" PRIu64 " elements of at least %" PRIu64
             " bits each, more than the largest packet (%" PRIu64
             " bits) can hold: its length field is damaged",
             guard.length, guard.element_bits, guard.max_bits);
}

bool lengthguard_take(char *note, size_t n)
{
    if (!guard.refused) return false;
    refused_note(note, n);
    guard.refused = false;
    return true;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* The fewest bits a field of class fc takes in a CTF stream: 0 for what
 * can be empty (variants, options, dynamic arrays). A string takes its
 * terminating byte at least. */
static uint64_t min_bits(const bt_field_class *fc)
{
    bt_field_class_type t = bt_field_class_get_type(fc);
    if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_INTEGER)) /* enumerations too */
        return bt_field_class_integer_get_field_value_range(fc);
    switch (t) {
    case BT_FIELD_CLASS_TYPE_BIT_ARRAY:
        return bt_field_class_bit_array_get_length(fc);
    case BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL:
        return 32;
    case BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL:
        return 64;
    case BT_FIELD_CLASS_TYPE_STRING:
        return 8;
    case BT_FIELD_CLASS_TYPE_STATIC_ARRAY:
        return sat_mul(bt_field_class_array_static_get_length(fc),
                       min_bits(bt_field_class_array_borrow_element_field_class_const(fc)));
    case BT_FIELD_CLASS_TYPE_STRUCTURE: {
        uint64_t bits = 0, n = bt_field_class_structure_get_member_count(fc);
        for (uint64_t i = 0; i < n; i++)
            bits =
                sat_add(bits, min_bits(bt_field_class_structure_member_borrow_field_class_const(
                                  bt_field_class_structure_borrow_member_by_index_const(fc, i))));
        return bits;
    }
    default:
        return 0;
    }
}

typedef bt_field_array_dynamic_set_length_status (*set_length_fn)(bt_field *, uint64_t);

static set_length_fn library_set_length;
static pthread_once_t resolved = PTHREAD_ONCE_INIT;

/* libbabeltrace2's own function: the next definition after this one. */
static void resolve(void)
{
    /* POSIX allows converting dlsym's object pointer to a function pointer */
    library_set_length = (set_length_fn)dlsym(RTLD_NEXT, "bt_field_array_dynamic_set_length");
}

/* Replaces libbabeltrace2's (lengthguard.h): the same contract, and a
 * length no packet can hold fails as if the memory ran out, with an error
 * cause saying why. */
bt_field_array_dynamic_set_length_status bt_field_array_dynamic_set_length(bt_field *field,
                                                                           uint64_t length)
{
    pthread_once(&resolved, resolve);
    if (guard.max_bits && length) {
        const bt_field_class *array = bt_field_borrow_class_const(field);
        uint64_t bits = min_bits(bt_field_class_array_borrow_element_field_class_const(array));
        if (bits < 1) bits = 1; /* even an empty element: no more than one per bit */
        if (length > guard.max_bits / bits) {
            guard.refused = true;
            guard.length = length;
            guard.element_bits = bits;
            char note[300];
            refused_note(note, sizeof note);
            BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_UNKNOWN("fjtrace-analyze", "%s", note);
            return BT_FIELD_DYNAMIC_ARRAY_SET_LENGTH_STATUS_MEMORY_ERROR;
        }
    }
    if (!library_set_length) return BT_FIELD_DYNAMIC_ARRAY_SET_LENGTH_STATUS_MEMORY_ERROR;
    return library_set_length(field, length);
}
