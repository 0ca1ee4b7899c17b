/*
 * The fork/join study's quicksort on java.util.concurrent.ForkJoinPool
 * (docs/java.md): java QuickSort [N [PARALLELISM [THRESHOLD]]] sorts N
 * (default 2,000,000) pseudo-random ints; the pivot is the larger of the
 * first two distinct elements; the left part is forked, the right part
 * sorted inline; parts of THRESHOLD elements or fewer (default 1000) are
 * sorted sequentially. Checks the result and prints the milliseconds.
 */
import java.util.Random;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;

public final class QuickSort extends RecursiveAction {
    private static final long serialVersionUID = 1L;
    private static int threshold = 1000;
    private final int[] a;
    private final int lo, hi; /* [lo, hi) */

    QuickSort(int[] a, int lo, int hi) {
        this.a = a;
        this.lo = lo;
        this.hi = hi;
    }

    /* The larger of the first two distinct elements, or none (-1). */
    private int pivotIndex() {
        for (int i = lo + 1; i < hi; i++) {
            if (a[i] != a[lo]) return a[i] > a[lo] ? i : lo;
        }
        return -1;
    }

    /* Elements < pivot go left; returns the split point. */
    private int partition(int pivot) {
        int i = lo, j = hi - 1;
        while (i <= j) {
            while (a[i] < pivot) i++;
            while (a[j] >= pivot) j--;
            if (i < j) {
                int t = a[i];
                a[i] = a[j];
                a[j] = t;
            }
        }
        return i;
    }

    static void sequential(int[] a, int lo, int hi) {
        java.util.Arrays.sort(a, lo, hi);
    }

    @Override
    protected void compute() {
        if (hi - lo <= threshold) {
            sequential(a, lo, hi);
            return;
        }
        int p = pivotIndex();
        if (p < 0) return; /* all equal */
        int mid = partition(a[p]);
        QuickSort left = new QuickSort(a, lo, mid);
        left.fork();
        new QuickSort(a, mid, hi).compute();
        left.join();
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
        int parallelism = args.length > 1 ? Integer.parseInt(args[1])
                                          : Runtime.getRuntime().availableProcessors();
        if (args.length > 2) threshold = Integer.parseInt(args[2]);
        int[] a = new Random(42).ints(n, 0, Integer.MAX_VALUE).toArray();
        long t0 = System.nanoTime();
        ForkJoinPool pool = new ForkJoinPool(parallelism);
        pool.invoke(new QuickSort(a, 0, n));
        pool.shutdown();
        long ms = (System.nanoTime() - t0) / 1000000;
        for (int i = 1; i < n; i++) {
            if (a[i - 1] > a[i]) {
                System.err.println("not sorted at " + i);
                System.exit(1);
            }
        }
        System.out.println("sorted " + n + " ints in " + ms + " ms (parallelism " + parallelism
                + ", threshold " + threshold + ")");
    }
}
