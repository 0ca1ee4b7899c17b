/* Creation sites (docs/java.md): in the program's classes, each call that
 * may fork or submit tasks is preceded by Hooks.site(N), N naming the
 * calling class, method and source line (registered here, at load time:
 * no stack walking while the program runs). */
package fjtrace.agent;

import fjtrace.boot.Hooks;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;

final class Sites implements Opcodes {
    private static final String FJ_TASK = "Ljava/util/concurrent/ForkJoinTask;";

    private Sites() {}

    /* fork(); ForkJoinTask.invokeAll(...); invoke() of a task; a pool's
     * invoke, submit, execute. Matched by name and descriptor: the owner is
     * the receiver's static type, often the program's own task class. */
    static boolean createsTasks(MethodInsnNode c) {
        switch (c.name) {
        case "fork":
            return c.desc.equals("()" + FJ_TASK);
        case "invokeAll":
            return c.getOpcode() == INVOKESTATIC && (c.desc.contains(FJ_TASK) || c.owner.contains("Task"))
                    && !c.owner.startsWith("java/util/concurrent/Executor");
        case "invoke":
            return c.desc.equals("()Ljava/lang/Object;") && !c.owner.startsWith("java/lang/invoke/")
                    || c.owner.equals(Transformer.POOL);
        case "submit":
        case "execute":
            return c.owner.equals(Transformer.POOL) || c.desc.contains(FJ_TASK);
        default:
            return false;
        }
    }

    static byte[] rewrite(String name, byte[] bytes) {
        ClassReader cr = new ClassReader(bytes);
        ClassNode cn = new ClassNode();
        cr.accept(cn, 0);
        int n = 0;
        for (MethodNode m : cn.methods) n += method(cn, m);
        if (n == 0) return null;
        /* Hooks.site(int) leaves the stack as it was: the frames hold. */
        ClassWriter cw = new ClassWriter(cr, ClassWriter.COMPUTE_MAXS);
        cn.accept(cw);
        return cw.toByteArray();
    }

    private static int method(ClassNode cn, MethodNode m) {
        int line = 0, n = 0;
        String function = cn.name.replace('/', '.') + "." + m.name;
        for (AbstractInsnNode i : m.instructions.toArray()) {
            if (i instanceof LineNumberNode) line = ((LineNumberNode) i).line;
            if (i instanceof MethodInsnNode && createsTasks((MethodInsnNode) i)) {
                int site = Hooks.registerSite(function, cn.sourceFile, line);
                m.instructions.insertBefore(i, Code.of(Code.constant(site), Code.hook("site", "(I)V")));
                n++;
            }
        }
        return n;
    }
}
