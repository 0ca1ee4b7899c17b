/*
 * The calls the instrumented ForkJoinPool, ForkJoinTask and CountedCompleter
 * make (docs/java.md). Loaded by the boot class loader (the agent jar's
 * Boot-Class-Path), so that java.base can see it; its natives are in
 * libfjtrace-jni.so, which emits the fjtrace LTTng-UST events.
 *
 * Every hook is static and starts with a plain test: while nothing records,
 * `on` is false and a hook costs one volatile read (the JIT inlines it).
 * Task ids live in a field the agent adds to ForkJoinTask; 0 means "not
 * traced" (forked while nothing recorded), and such a task gets no events.
 */
package fjtrace.boot;

public final class Hooks {
    /* A session records fjtrace events: refreshed by the poller thread
     * (docs/java.md: a session started later is seen within POLL_MS). */
    public static volatile boolean on;
    private static final int POLL_MS = 10;
    private static volatile boolean loaded;

    /* Creation sites: class, method, file, line of each instrumented call of
     * fork/invoke/submit/execute, registered by the agent as it rewrites
     * the caller; named in the trace (site_name) at first use while on. */
    private static final Object siteLock = new Object();
    private static String[] siteFunction = new String[256];
    private static String[] siteFile = new String[256];
    private static int[] siteLine = new int[256];
    private static int nsites = 1; /* 0: no site */
    private static volatile boolean[] siteNamed = new boolean[256];
    private static boolean wasOn;

    private Hooks() {}

    /* Called once by the agent's premain: loads the JNI library (here, so
     * that the natives bind to this boot class), starts the poller. */
    public static void init(String library, String runtime) {
        System.load(library);
        loaded = true;
        runtime0(runtime);
        on = enabled0();
        wasOn = on;
        Thread poller = new Thread(Hooks::poll, "fjtrace-poll");
        poller.setDaemon(true);
        poller.start();
        Runtime.getRuntime().addShutdownHook(new Thread(Hooks::exit0, "fjtrace-exit"));
    }

    private static void poll() {
        for (;;) {
            boolean now = enabled0();
            if (now && !wasOn) siteNamed = new boolean[siteNamed.length]; /* a new recording */
            wasOn = now;
            on = now;
            try {
                Thread.sleep(POLL_MS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    public static int registerSite(String function, String file, int line) {
        synchronized (siteLock) {
            if (nsites == siteLine.length) {
                int n = 2 * nsites;
                siteFunction = java.util.Arrays.copyOf(siteFunction, n);
                siteFile = java.util.Arrays.copyOf(siteFile, n);
                siteLine = java.util.Arrays.copyOf(siteLine, n);
                siteNamed = java.util.Arrays.copyOf(siteNamed, n);
            }
            siteFunction[nsites] = function;
            siteFile[nsites] = file;
            siteLine[nsites] = line;
            return nsites++;
        }
    }

    /* Before an instrumented call that may fork or submit: the site of the
     * tasks it creates on this thread. */
    public static void site(int s) {
        if (!on) return;
        boolean[] named = siteNamed;
        if (s < named.length && !named[s]) {
            String f, file;
            int line;
            synchronized (siteLock) {
                f = siteFunction[s];
                file = siteFile[s];
                line = siteLine[s];
            }
            siteName0(s, f, file == null ? "" : file, line);
            named[s] = true;
        }
        site0(s);
    }

    /* ForkJoinPool constructors: the pool's id (kept in its fjtrace$pool). */
    public static int poolBegin(int parallelism, boolean common) {
        if (!loaded) return 0;
        return poolBegin0(parallelism, common);
    }

    /* ForkJoinPool.getAndBitwiseOrMode: TERMINATED set now ends the pool. */
    public static void mode(int old, int pool, int bits) {
        final int terminated = 1 << 25; /* ForkJoinPool.TERMINATED (JDK 17) */
        if (pool != 0 && (bits & terminated) != 0 && (old & terminated) == 0) poolEnd0(pool);
    }

    public static void workerBegin(int pool) {
        if (pool != 0) workerBegin0(pool, Thread.currentThread().getId());
    }

    public static void workerEnd(int pool) {
        if (pool != 0) workerEnd0(pool);
    }

    /* ForkJoinTask.fork(): the new task's id (0: not traced, or a thread
     * outside any pool, whose push is a submission: see submit). */
    public static long fork() {
        return on ? fork0() : 0;
    }

    /* ForkJoinPool.externalSubmit: the id of a root (or, from a worker of
     * that pool, of a forked task). */
    public static long submit(long id, int pool) {
        return on && pool != 0 ? submit0(pool) : 0;
    }

    /* ForkJoinPool.externalPush, from externalSubmit (the id is given) or
     * from a fork() outside the pools (fork gave 0): a root. */
    public static long submitIfNone(long id, int pool) {
        return on && id == 0 && pool != 0 ? submit0(pool) : id;
    }

    /* ForkJoinTask.invoke(): outside any task, a root of the common pool
     * (pool) run by its caller; inside one, a child run inline. */
    public static long invoke(long id, int pool) {
        return on && pool != 0 ? invoke0(pool) : 0;
    }

    public static void exec(long id) {
        if (id != 0) exec0(id);
    }

    public static void executed(long id) {
        if (id != 0) executed0(id);
    }

    /* The join really waits (awaitDone is helping or about to park). */
    public static void joinWait(long id) {
        if (id != 0) joinWait0(id);
    }

    public static void joinDone(long id) {
        if (id != 0) joinDone0(id);
    }

    /* The end of a client's join/get/invoke of a root that is done: its
     * result, once (the id's sign bit then says it was told). */
    public static long result(java.util.concurrent.Future<?> task, long id) {
        if (id > 0 && task.isDone() && result0(id)) return id | Long.MIN_VALUE;
        return id;
    }

    public static void completing(long id) {
        if (id != 0) completing0(id);
    }

    public static void completed(long id) {
        if (id != 0) completed0(id);
    }

    /* A level of propagateCompletion: completes with no hook to run. */
    public static void propagated(long id) {
        if (id != 0) {
            completing0(id);
            completed0(id);
        }
    }

    public static void park() {
        if (on) park0();
    }

    public static void unpark() {
        if (on) unpark0();
    }

    public static void wake(Thread t) {
        if (on && t != null) wake0(t.getId());
    }

    /* ForkJoinPool.managedBlock: a blocking wait, named after the blocker. */
    public static void blockBegin(Object blocker) {
        if (on && blocker != null) blockBegin0(blocker.getClass().getName());
    }

    public static void blockEnd() {
        if (on) blockEnd0();
    }

    private static native boolean enabled0();
    private static native void runtime0(String runtime);
    private static native void exit0();
    private static native void siteName0(int site, String function, String file, int line);
    private static native void site0(int site);
    private static native int poolBegin0(int parallelism, boolean common);
    private static native void poolEnd0(int pool);
    private static native void workerBegin0(int pool, long javaThreadId);
    private static native void workerEnd0(int pool);
    private static native long fork0();
    private static native long submit0(int pool);
    private static native long invoke0(int pool);
    private static native void exec0(long id);
    private static native void executed0(long id);
    private static native void joinWait0(long id);
    private static native void joinDone0(long id);
    private static native boolean result0(long id);
    private static native void completing0(long id);
    private static native void completed0(long id);
    private static native void park0();
    private static native void unpark0();
    private static native void wake0(long javaThreadId);
    private static native void blockBegin0(String blocker);
    private static native void blockEnd0();
}
