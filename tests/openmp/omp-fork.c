/* omp-fork: an OpenMP program that forks without exec (issue 24, item 8).
 * The parent runs a region of 2 threads in which one thread creates
 * PARENT_A tasks; then it forks: the child runs a region creating
 * CHILD tasks and _exits; the parent waits for it, then runs a second
 * region of PARENT_B tasks. Prints "parent PID child PID". */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

enum { PARENT_A = 100, CHILD = 37, PARENT_B = 50 };

static volatile long sink;

static void region(int tasks)
{
#pragma omp parallel num_threads(2)
#pragma omp single
    for (int i = 0; i < tasks; i++) {
#pragma omp task firstprivate(i)
        {
            long s = 0;
            for (int k = 0; k < 20000; k++)
                s += k ^ i;
            sink = s;
        }
    }
}

int main(void)
{
    region(PARENT_A);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) {
        region(CHILD);
        _exit(0);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) return 3;
    region(PARENT_B);
    printf("parent %ld child %ld\n", (long)getpid(), (long)pid);
    return 0;
}
