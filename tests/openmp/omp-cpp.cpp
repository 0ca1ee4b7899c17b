// A C++ OpenMP program for the creation sites' names (test_openmp.sh):
// tasks made in a class template's member function and in a function of a
// nested namespace, which fjtrace-analyze names with their namespaces and
// classes ("work::Sorter<int>::fib", "work::detail::leaves").
#include <cstdio>
#include <omp.h>

namespace work {
namespace detail {
long leaves(int n)
{
    long count = 0;
    for (int i = 0; i < n; i++) {
#pragma omp task shared(count)
        {
#pragma omp atomic
            count++;
        }
    }
#pragma omp taskwait
    return count;
}
} // namespace detail

template <typename T> struct Sorter {
    static T fib(T n)
    {
        if (n < 2) return n;
        T a = 0, b = 0;
#pragma omp task shared(a)
        a = fib(n - 1);
#pragma omp task shared(b)
        b = fib(n - 2);
#pragma omp taskwait
        return a + b;
    }
};
} // namespace work

int main()
{
    long f = 0, l = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
        f = work::Sorter<long>::fib(10);
        l = work::detail::leaves(8);
    }
    std::printf("fib(10) = %ld, %ld leaves\n", f, l);
    return f == 55 && l == 8 ? 0 : 1;
}
