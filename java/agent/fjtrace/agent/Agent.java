/*
 * The fjtrace JVM agent (docs/java.md): -javaagent:fjtrace-agent.jar[=lib=PATH]
 * or JAVA_TOOL_OPTIONS. Instruments ForkJoinPool, ForkJoinTask and
 * CountedCompleter as they are loaded, so that they emit the fjtrace
 * LTTng-UST events through libfjtrace-jni.so, and names the creation sites
 * of tasks in the program's classes.
 */
package fjtrace.agent;

import fjtrace.boot.Hooks;
import java.io.File;
import java.lang.instrument.Instrumentation;
import java.util.Map;
import java.util.Set;

public final class Agent {
    /* The JDK whose ForkJoinPool the instrumentation knows (its private
     * methods: docs/java.md, "Supported JDKs"). */
    static final int SUPPORTED_FEATURE = 17;
    static final String LIBRARY = "libfjtrace-jni.so";

    private Agent() {}

    static void warn(String what) {
        System.err.println("fjtrace-agent: " + what);
    }

    /* Never throws: a failing premain would abort the JVM; the program
     * then runs untraced, with one line saying why. */
    public static void premain(String args, Instrumentation inst) {
        try {
            start(args, inst);
        } catch (Throwable e) {
            warn("cannot start (" + e + "): ForkJoinPool is not traced");
        }
    }

    private static void start(String args, Instrumentation inst) throws ClassNotFoundException {
        int feature = Runtime.version().feature();
        if (feature != SUPPORTED_FEATURE) {
            warn("JDK " + feature + " is not supported (JDK " + SUPPORTED_FEATURE
                    + " only): ForkJoinPool is not traced");
            return;
        }
        String lib = library(args);
        if (!new File(lib).canRead()) {
            warn("the JNI library " + lib + " is missing: ForkJoinPool is not traced");
            return;
        }
        for (Class<?> c : inst.getAllLoadedClasses()) {
            if (Transformer.isRuntimeClass(c.getName().replace('.', '/'))) {
                warn(c.getName() + " was loaded before the agent: ForkJoinPool is not traced");
                return;
            }
        }
        /* java.base calls Hooks, which lives in the boot loader's unnamed
         * module: java.base must read it. */
        inst.redefineModule(Object.class.getModule(), Set.of(Hooks.class.getModule()), Map.of(),
                Map.of(), Set.of(), Map.of());
        Hooks.init(lib, "JDK " + System.getProperty("java.runtime.version"));
        Cache.init(Agent.class, org.objectweb.asm.ClassWriter.class, org.objectweb.asm.tree.ClassNode.class);
        inst.addTransformer(new Transformer(), false);
        /* Rewritten here, in the JVM's start-up, rather than at the
         * program's first use of a pool: loading and running ASM there cost
         * the program's first fork/join computation 2-4x its time
         * (bench/RESULTS-java.md). Loaded, not initialised: the common
         * pool is still made at first use, as without the agent. */
        for (String c : new String[] {Transformer.TASK, Transformer.COMPLETER, Transformer.POOL})
            Class.forName(c.replace('/', '.'), false, null);
    }

    /* lib=PATH in the agent's arguments, else next to the agent's jar. */
    private static String library(String args) {
        if (args != null) {
            for (String a : args.split(",")) {
                if (a.startsWith("lib=")) return a.substring(4);
            }
        }
        try {
            File jar = new File(Agent.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return new File(jar.getParentFile(), LIBRARY).getPath();
        } catch (Exception e) {
            return LIBRARY;
        }
    }
}
