/*
 * The fork/join study's fib programs on java.util.concurrent.ForkJoinPool
 * (docs/java.md). java Fib MODE N [PARALLELISM [THRESHOLD [REPS]]]:
 *   seq       plain sequential recursion (program 1);
 *   every     fork at every call: f1.fork(); f2.compute(); f1.join()
 *             (program 2: forks exactly F(N+1) - 1 tasks);
 *   counter   fork only while a counter of live forked tasks is below the
 *             parallelism, else recurse sequentially (program 3);
 *   threshold fork above THRESHOLD (default 20), sequential below.
 * Prints "fib(N) = F", the milliseconds taken, and a summary line with the
 * wall-clock and the process's CPU milliseconds of the computation (the
 * pool's creation included, the JVM's start-up not): bench/java.sh.
 * REPS > 1 (default 1) computes fib(N) REPS times on the same pool; the
 * summary's cpu_ms stays the first (cold) run's, cold_cpu_us is its CPU
 * time measured as warm_cpu_us is, and warm_cpu_us is the
 * median over the last half of the runs of the CPU time of the program's
 * threads (its Java threads' clocks, ns resolution: the process clock
 * getProcessCpuTime reads moves in 10 ms ticks; the JVM's compiler and GC
 * threads are not in it), the pool then warm and its code JIT-compiled.
 */
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.atomic.AtomicInteger;

public final class Fib extends RecursiveTask<Long> {
    private static final long serialVersionUID = 1L;
    private static final AtomicInteger live = new AtomicInteger();
    private static String mode = "every";
    private static int parallelism = 1;
    private static int threshold = 20;

    private final int n;

    Fib(int n) {
        this.n = n;
    }

    static long seq(int n) {
        return n < 2 ? n : seq(n - 1) + seq(n - 2);
    }

    private boolean forkHere() {
        switch (mode) {
        case "every":
            return true;
        case "threshold":
            return n > threshold;
        default: /* counter */
            if (live.incrementAndGet() <= parallelism) return true;
            live.decrementAndGet();
            return false;
        }
    }

    @Override
    protected Long compute() {
        if (n < 2) return (long) n;
        if (!forkHere()) return seq(n);
        Fib f1 = new Fib(n - 2);
        f1.fork();
        long r = new Fib(n - 1).compute();
        long l = f1.join();
        if (mode.equals("counter")) live.decrementAndGet();
        return r + l;
    }

    public static void main(String[] args) {
        if (args.length < 2) {
            System.err.println("usage: java Fib seq|every|counter|threshold N [PARALLELISM [THRESHOLD]]");
            System.exit(2);
        }
        mode = args[0];
        int n = Integer.parseInt(args[1]);
        parallelism = args.length > 2 ? Integer.parseInt(args[2]) : Runtime.getRuntime().availableProcessors();
        if (args.length > 3) threshold = Integer.parseInt(args[3]);
        int reps = args.length > 4 ? Integer.parseInt(args[4]) : 1;
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long c0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        long f, ns, cpu;
        double warmUs = -1, coldUs = 0;
        if (mode.equals("seq")) {
            f = seq(n);
            ns = System.nanoTime() - t0;
            cpu = os.getProcessCpuTime() - c0;
        } else {
            long cold = threadsCpu();
            ForkJoinPool pool = new ForkJoinPool(parallelism);
            f = pool.invoke(new Fib(n));
            coldUs = (threadsCpu() - cold) / 1e3;
            ns = System.nanoTime() - t0;
            cpu = os.getProcessCpuTime() - c0;
            long[] warm = new long[reps / 2];
            for (int i = 1; i < reps; i++) {
                long before = threadsCpu();
                if (pool.invoke(new Fib(n)) != f) throw new IllegalStateException("fib changed");
                if (i >= reps - warm.length) warm[i - (reps - warm.length)] = threadsCpu() - before;
            }
            pool.shutdown();
            if (warm.length > 0) {
                Arrays.sort(warm);
                warmUs = warm[(warm.length - 1) / 2] / 1e3;
            }
        }
        System.out.println("fib(" + n + ") = " + f + " in " + ns / 1000000 + " ms (" + mode
                + ", parallelism " + parallelism + ")");
        if (warmUs < 0) {
            System.out.printf("summary wall_ms=%.3f cpu_ms=%.3f%n", ns / 1e6, cpu / 1e6);
        } else {
            System.out.printf("summary wall_ms=%.3f cpu_ms=%.3f reps=%d cold_cpu_us=%.1f warm_cpu_us=%.1f%n",
                    ns / 1e6, cpu / 1e6, reps, coldUs, warmUs);
        }
    }

    /* The CPU time of the live Java threads, ns. */
    private static long threadsCpu() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (long t : mx.getThreadCpuTime(mx.getAllThreadIds()))
            if (t > 0) sum += t;
        return sum;
    }
}
