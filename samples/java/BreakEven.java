/*
 * The break-even experiment (docs/experiments.md §2) on Java's parallel streams (docs/java.md):
 * java BreakEven [N [Q [CLIENTS [REQUESTS]]]]. Each of CLIENTS threads
 * requests REQUESTS times (10 ms think time between requests) the pipeline
 * "longs in (0, N], a filter that burns Q units of CPU per element, an
 * empty sink" — sequentially, then in parallel on the common pool (its
 * tasks complete through CountedCompleters: EXEC->EXECUTED and
 * COMPLETING->COMPLETED). Prints min, p50, p90 and max request times (us)
 * of both. Defaults: N=100, Q=1000, CLIENTS=1, REQUESTS=20.
 */
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.LongStream;

public final class BreakEven {
    private static volatile long sink;

    private BreakEven() {}

    /* Q units of CPU: a dependent chain the JIT cannot drop. */
    static boolean burn(long x, int q) {
        long h = x;
        for (int i = 0; i < q; i++) h = h * 6364136223846793005L + 1442695040888963407L;
        sink = h;
        return (h & 1) == 0;
    }

    static long request(boolean parallel, int n, int q) {
        LongStream s = LongStream.rangeClosed(1, n);
        if (parallel) s = s.parallel();
        long t0 = System.nanoTime();
        s.filter(x -> burn(x, q)).forEach(x -> { });
        return (System.nanoTime() - t0) / 1000;
    }

    static List<Long> run(boolean parallel, int n, int q, int clients, int requests)
            throws InterruptedException {
        List<Long> times = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            Thread t = new Thread(() -> {
                for (int r = 0; r < requests; r++) {
                    times.add(request(parallel, n, q));
                    try {
                        Thread.sleep(10); /* think time */
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "client-" + c);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) t.join();
        List<Long> sorted = new ArrayList<>(times);
        Collections.sort(sorted);
        return sorted;
    }

    static String percentiles(List<Long> t) {
        int k = t.size();
        return "min " + t.get(0) + " p50 " + t.get(k / 2) + " p90 " + t.get(Math.min(k - 1, k * 9 / 10))
                + " max " + t.get(k - 1) + " us";
    }

    public static void main(String[] a) throws InterruptedException {
        int n = a.length > 0 ? Integer.parseInt(a[0]) : 100;
        int q = a.length > 1 ? Integer.parseInt(a[1]) : 1000;
        int clients = a.length > 2 ? Integer.parseInt(a[2]) : 1;
        int requests = a.length > 3 ? Integer.parseInt(a[3]) : 20;
        System.out.println("N=" + n + " Q=" + q + " clients=" + clients + " requests=" + requests
                + " (N*Q=" + (long) n * q + ")");
        System.out.println("seq: " + percentiles(run(false, n, q, clients, requests)));
        System.out.println("par: " + percentiles(run(true, n, q, clients, requests)));
    }
}
