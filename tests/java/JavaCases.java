/*
 * Programs with known answers for tests/java/test_java.py, traced through
 * fjtrace-record --java (docs/java.md). java JavaCases CASE ARGS:
 *   fib N P            f1.fork(); f2.compute(); f1.join() on a pool of P:
 *                      exactly F(N+1)-1 forks
 *   completer N LEAF P a CountedCompleter sum over [0, N) split while a range
 *                      is longer than LEAF; each leaf burns 1 ms of thread CPU
 *   pools N            fib(N) on a private pool of 2 and on the common pool
 *   throws N           fib(N) whose leaf fib(1) on the rightmost path throws
 *   queued M           M tasks of 200 ms queued on a pool of 1, then exit(0)
 *   jit N ROUNDS P     fib(N) ROUNDS times on one pool (C2 compiles it)
 *   stream N           the sum of x*x over a parallel LongStream (1..N)
 *   race T N           T threads, released at once, each the common pool's
 *                      first user: fib(N) each, by invoke
 *   tree D US...       on a pool of 2, a binary tree of 2^D leaves burning
 *                      0 us (a warm-up), then one per US: work 2^D x US,
 *                      span US and the path's own code, which each tree
 *                      prints as measured on its threads' CPU clocks ("tree
 *                      span on the CPU NS ns"); and what a reading of that
 *                      clock costs ("cpu clock reading NS ns")
 */
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CountedCompleter;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.atomic.AtomicLong;

public final class JavaCases {
    private JavaCases() {}

    static final class Fib extends RecursiveTask<Long> {
        private static final long serialVersionUID = 1L;
        final int n;
        final boolean throwing;

        Fib(int n, boolean throwing) {
            this.n = n;
            this.throwing = throwing;
        }

        @Override
        protected Long compute() {
            if (n < 2) {
                if (throwing && n == 1) throw new IllegalStateException("fib(1) throws");
                return (long) n;
            }
            Fib f1 = new Fib(n - 2, false);
            f1.fork();
            long r = new Fib(n - 1, throwing).compute();
            return r + f1.join();
        }
    }

    static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
    static final AtomicLong total = new AtomicLong();

    /* burns ns of this thread's CPU time */
    static void burn(long ns) {
        long end = CPU.getCurrentThreadCpuTime() + ns;
        while (CPU.getCurrentThreadCpuTime() < end) Thread.onSpinWait();
    }

    /* A node of the tree; returns the CPU time (its threads' clocks) of the
     * longest path through it: its own code up to the fork of a child, that
     * child's path, its own code after its joins. The time inside the joins
     * is not its own: b.join() runs b here (still in this worker's queue),
     * a.join() runs a here too or, a stolen, helps the thief with a's
     * subtasks or parks. The readings on the path are part of it. */
    static final class Tree extends RecursiveTask<Long> {
        private static final long serialVersionUID = 1L;
        final int depth;
        final long leaf;

        Tree(int depth, long leaf) {
            this.depth = depth;
            this.leaf = leaf;
        }

        @Override
        protected Long compute() {
            final long t0 = CPU.getCurrentThreadCpuTime();
            if (depth == 0) {
                burn(leaf);
                return CPU.getCurrentThreadCpuTime() - t0;
            }
            Tree a = new Tree(depth - 1, leaf), b = new Tree(depth - 1, leaf);
            a.fork();
            final long t1 = CPU.getCurrentThreadCpuTime();
            b.fork();
            final long t2 = CPU.getCurrentThreadCpuTime();
            final long pb = b.join(), pa = a.join();
            final long t3 = CPU.getCurrentThreadCpuTime();
            return Math.max(t1 - t0 + pa, t2 - t0 + pb) + CPU.getCurrentThreadCpuTime() - t3;
        }
    }

    static final class Sum extends CountedCompleter<Void> {
        private static final long serialVersionUID = 1L;
        final int lo, hi, leaf;

        Sum(CountedCompleter<?> parent, int lo, int hi, int leaf) {
            super(parent);
            this.lo = lo;
            this.hi = hi;
            this.leaf = leaf;
        }

        @Override
        public void compute() {
            int l = lo, h = hi;
            while (h - l > leaf) {
                int mid = (l + h) >>> 1;
                addToPendingCount(1);
                new Sum(this, mid, h, leaf).fork();
                h = mid;
            }
            burn(1_000_000);
            total.addAndGet(h - l);
            tryComplete();
        }
    }

    public static void main(String[] a) throws Exception {
        switch (a[0]) {
        case "fib": {
            ForkJoinPool p = new ForkJoinPool(Integer.parseInt(a[2]));
            System.out.println("fib = " + p.invoke(new Fib(Integer.parseInt(a[1]), false)));
            p.shutdown();
            p.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
            break;
        }
        case "completer": {
            ForkJoinPool p = new ForkJoinPool(Integer.parseInt(a[3]));
            p.invoke(new Sum(null, 0, Integer.parseInt(a[1]), Integer.parseInt(a[2])));
            System.out.println("sum of lengths = " + total.get());
            p.shutdown();
            p.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
            break;
        }
        case "pools": {
            int n = Integer.parseInt(a[1]);
            ForkJoinPool p = new ForkJoinPool(2);
            System.out.println("private fib = " + p.invoke(new Fib(n, false)));
            System.out.println("common fib = " + ForkJoinPool.commonPool().invoke(new Fib(n, false)));
            p.shutdown();
            p.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
            break;
        }
        case "throws": {
            ForkJoinPool p = new ForkJoinPool(2);
            try {
                p.invoke(new Fib(Integer.parseInt(a[1]), true));
                System.out.println("no exception");
            } catch (IllegalStateException e) {
                System.out.println("caught: " + e.getMessage());
            }
            p.shutdown();
            p.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
            break;
        }
        case "queued": {
            ForkJoinPool p = new ForkJoinPool(1);
            int m = Integer.parseInt(a[1]);
            for (int i = 0; i < m; i++) p.execute(() -> burn(200_000_000L));
            Thread.sleep(50);
            System.out.println("exiting with tasks queued");
            System.exit(0);
            break;
        }
        case "jit": {
            ForkJoinPool p = new ForkJoinPool(Integer.parseInt(a[3]));
            int n = Integer.parseInt(a[1]), rounds = Integer.parseInt(a[2]);
            long s = 0;
            for (int i = 0; i < rounds; i++) s += p.invoke(new Fib(n, false));
            System.out.println("sum = " + s);
            p.shutdown();
            p.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
            break;
        }
        case "stream": {
            long n = Long.parseLong(a[1]);
            System.out.println("stream sum = "
                    + java.util.stream.LongStream.rangeClosed(1, n).parallel().map(x -> x * x).sum());
            break;
        }
        case "tree": {
            int depth = Integer.parseInt(a[1]);
            /* ThreadMXBean's reading is a call into the JVM, which calls
             * clock_gettime(CLOCK_THREAD_CPUTIME_ID), a system call: 1.8 us
             * a reading on the test VM (1.77-1.83 us, load 8-13), measured
             * here on the same clock and told, so that the path's readings
             * (5 per node, 2 per leaf) can be weighed against the leaf */
            final int n = 10000;
            long r0 = CPU.getCurrentThreadCpuTime();
            for (int i = 1; i < n; i++) CPU.getCurrentThreadCpuTime();
            System.out.println("cpu clock reading " + (CPU.getCurrentThreadCpuTime() - r0) / n + " ns");
            ForkJoinPool p = new ForkJoinPool(2);
            p.invoke(new Tree(depth, 0));
            for (int i = 2; i < a.length; i++)
                System.out.println("tree span on the CPU " + p.invoke(new Tree(depth, Long.parseLong(a[i]) * 1000)) + " ns");
            p.shutdown();
            p.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
            break;
        }
        case "race": {
            int threads = Integer.parseInt(a[1]), n = Integer.parseInt(a[2]);
            /* The common pool exists (ForkJoinPool initialised) but is
             * unused: the threads race to its first event. */
            System.out.println("common parallelism " + ForkJoinPool.getCommonPoolParallelism());
            java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
            Thread[] ts = new Thread[threads];
            for (int i = 0; i < threads; i++) {
                ts[i] = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    total.addAndGet(ForkJoinPool.commonPool().invoke(new Fib(n, false)));
                });
                ts[i].start();
            }
            go.countDown();
            for (Thread t : ts) t.join();
            System.out.println("race sum = " + total.get());
            break;
        }
        default:
            System.err.println("unknown case " + a[0]);
            System.exit(2);
        }
    }
}
