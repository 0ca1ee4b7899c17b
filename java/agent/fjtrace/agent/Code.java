/* Bytecode snippets the hooks are made of (ASM tree API). */
package fjtrace.agent;

import java.util.ArrayList;
import java.util.List;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TryCatchBlockNode;
import org.objectweb.asm.tree.VarInsnNode;

final class Code implements Opcodes {
    static final String HOOKS = "fjtrace/boot/Hooks";
    /* The fields the agent adds: a task's id, a pool's id (docs/java.md). */
    static final String TASK_ID = "fjtrace$id";
    static final String POOL_ID = "fjtrace$pool";
    /* The id a task object had when it first ran: its completion's id (a
     * parallel stream's task forks its own object again as its right half,
     * which gives TASK_ID another id; the object's completion is still the
     * first task's). */
    static final String TASK_FIRST = "fjtrace$first";

    private Code() {}

    static InsnList of(AbstractInsnNode... insns) {
        InsnList l = new InsnList();
        for (AbstractInsnNode i : insns) l.add(i);
        return l;
    }

    static MethodInsnNode hook(String name, String desc) {
        return new MethodInsnNode(INVOKESTATIC, HOOKS, name, desc, false);
    }

    static VarInsnNode load(int local) {
        return new VarInsnNode(ALOAD, local);
    }

    /* object on the stack -> its task id */
    static FieldInsnNode taskId() {
        return new FieldInsnNode(GETFIELD, Transformer.TASK, TASK_ID, "J");
    }

    static FieldInsnNode firstId() {
        return new FieldInsnNode(GETFIELD, Transformer.TASK, TASK_FIRST, "J");
    }

    static FieldInsnNode setTaskId() {
        return new FieldInsnNode(PUTFIELD, Transformer.TASK, TASK_ID, "J");
    }

    static FieldInsnNode poolId() {
        return new FieldInsnNode(GETFIELD, Transformer.POOL, POOL_ID, "I");
    }

    static FieldInsnNode setPoolId() {
        return new FieldInsnNode(PUTFIELD, Transformer.POOL, POOL_ID, "I");
    }

    /* hook(local's task id) */
    static InsnList idHook(int local, String name) {
        return of(load(local), taskId(), hook(name, "(J)V"));
    }

    static LdcInsnNode constant(Object v) {
        return new LdcInsnNode(v);
    }

    static boolean isReturn(AbstractInsnNode i) {
        int op = i.getOpcode();
        return op >= IRETURN && op <= RETURN;
    }

    /* The calls in m to owner.name, in order. */
    static List<AbstractInsnNode> calls(MethodNode m, String owner, String name) {
        List<AbstractInsnNode> found = new ArrayList<>();
        for (AbstractInsnNode i : m.instructions)
            if (Transformer.isCall(i, owner, name)) found.add(i);
        return found;
    }

    /* Runs code (made fresh by the supplier) at every exit of m: before each
     * return, and in a handler for whatever it throws, which then rethrows.
     * Not for constructors (their start is not yet an object). */
    static void atExits(MethodNode m, java.util.function.Supplier<InsnList> code) {
        for (AbstractInsnNode i : m.instructions.toArray())
            if (isReturn(i)) m.instructions.insertBefore(i, code.get());
        LabelNode start = new LabelNode(), end = new LabelNode(), handler = new LabelNode();
        m.instructions.insert(start);
        m.instructions.add(end);
        m.instructions.add(handler);
        m.instructions.add(code.get());
        m.instructions.add(new InsnNode(ATHROW));
        m.tryCatchBlocks.add(new TryCatchBlockNode(start, end, handler, null));
    }

    /* Before each return of a constructor. */
    static void atReturns(MethodNode m, java.util.function.Supplier<InsnList> code) {
        for (AbstractInsnNode i : m.instructions.toArray())
            if (isReturn(i)) m.instructions.insertBefore(i, code.get());
    }

    /* A new long local of m, 0 from the method's first instruction on: an
     * exception handler that reads it (atExits, doExec's own) then sees it
     * set on every path. Call it after atExits, so that the setting lies
     * before the handler's range. */
    static int newLongLocal(MethodNode m) {
        int n = m.maxLocals;
        m.maxLocals += 2;
        return n;
    }

    static void zeroAtStart(MethodNode m, int local) {
        m.instructions.insert(of(new InsnNode(LCONST_0), new VarInsnNode(LSTORE, local)));
    }
}
