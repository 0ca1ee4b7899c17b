/*
 * Rewrites the JDK 17 fork/join classes as they are loaded (docs/java.md,
 * "Mapping"): method bodies only, plus one field per task and per pool
 * added at load time (the classes are never retransformed). Program
 * classes get the creation sites of the tasks they fork or submit.
 */
package fjtrace.agent;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldNode;
import org.objectweb.asm.tree.MethodNode;

final class Transformer implements ClassFileTransformer, Opcodes {
    static final String TASK = "java/util/concurrent/ForkJoinTask";
    static final String POOL = "java/util/concurrent/ForkJoinPool";
    static final String COMPLETER = "java/util/concurrent/CountedCompleter";

    static boolean isRuntimeClass(String name) {
        return name.equals(TASK) || name.equals(POOL) || name.equals(COMPLETER);
    }

    /* Classes whose calls are not creation sites: the JDK's own (but for
     * java.util.stream, whose tasks a parallel stream forks), the agent's. */
    private static boolean siteless(String name) {
        if (name.startsWith("java/util/stream/")) return false;
        return name.startsWith("java/") || name.startsWith("jdk/") || name.startsWith("sun/")
                || name.startsWith("com/sun/") || name.startsWith("fjtrace/")
                || name.startsWith("org/objectweb/asm/");
    }

    @Override
    public byte[] transform(Module module, ClassLoader loader, String name, Class<?> redefined,
            ProtectionDomain pd, byte[] bytes) {
        if (name == null || redefined != null) return null;
        try {
            if (isRuntimeClass(name)) return runtimeClass(name, bytes);
            if (!siteless(name)) return Sites.rewrite(name, bytes);
        } catch (Throwable e) {
            Agent.warn("cannot instrument " + name + " (" + e + "): left as it is");
        }
        return null;
    }

    private static byte[] runtimeClass(String name, byte[] bytes) {
        byte[] kept = Cache.get(name, bytes);
        if (kept != null) return kept;
        ClassNode cn = new ClassNode();
        new ClassReader(bytes).accept(cn, ClassReader.SKIP_FRAMES);
        Set<String> missing = new HashSet<>();
        switch (name) {
        case TASK:
            cn.fields.add(new FieldNode(ACC_TRANSIENT, Code.TASK_ID, "J", null, null));
            cn.fields.add(new FieldNode(ACC_TRANSIENT, Code.TASK_FIRST, "J", null, null));
            TaskHooks.apply(cn, missing);
            break;
        case POOL:
            cn.fields.add(new FieldNode(ACC_TRANSIENT, Code.POOL_ID, "I", null, null));
            PoolHooks.apply(cn, missing);
            break;
        default:
            TaskHooks.applyCompleter(cn, missing);
        }
        if (!missing.isEmpty())
            Agent.warn(name + ": no " + missing + " found (another JDK 17 update?): not traced there");
        ClassWriter cw = new FrameWriter(cn);
        cn.accept(cw);
        byte[] rewritten = cw.toByteArray();
        if (missing.isEmpty()) Cache.put(name, bytes, rewritten);
        return rewritten;
    }

    /* Frames computed for the rewritten JDK classes. The common superclass
     * of two types comes from their class files (read as resources, never
     * loaded: loading a fork/join class from here would define it without
     * the agent's changes); the class being rewritten from its ClassNode. */
    private static final class FrameWriter extends ClassWriter {
        private final ClassNode self;

        FrameWriter(ClassNode self) {
            super(COMPUTE_FRAMES);
            this.self = self;
        }

        private String superOf(String name) {
            if (name.equals(self.name)) return self.superName;
            try (java.io.InputStream in = Object.class.getResourceAsStream("/" + name + ".class")) {
                return in == null ? null : new ClassReader(in.readAllBytes()).getSuperName();
            } catch (java.io.IOException e) {
                return null;
            }
        }

        private List<String> chain(String name) {
            List<String> c = new ArrayList<>();
            for (String n = name; n != null; n = superOf(n)) c.add(n);
            return c;
        }

        @Override
        protected String getCommonSuperClass(String a, String b) {
            List<String> cb = chain(b);
            for (String n : chain(a))
                if (cb.contains(n)) return n;
            return "java/lang/Object";
        }
    }

    static MethodNode method(ClassNode cn, String name, String desc) {
        for (MethodNode m : cn.methods)
            if (m.name.equals(name) && (desc == null || m.desc.equals(desc))) return m;
        return null;
    }

    static boolean isCall(AbstractInsnNode i, String owner, String name) {
        if (!(i instanceof org.objectweb.asm.tree.MethodInsnNode)) return false;
        org.objectweb.asm.tree.MethodInsnNode m = (org.objectweb.asm.tree.MethodInsnNode) i;
        return m.owner.equals(owner) && m.name.equals(name);
    }
}
