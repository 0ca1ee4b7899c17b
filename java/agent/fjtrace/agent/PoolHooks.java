/* ForkJoinPool (docs/java.md, "Mapping"). */
package fjtrace.agent;

import static fjtrace.agent.Code.*;

import java.util.Set;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.VarInsnNode;

final class PoolHooks implements Opcodes {
    private static final String P = Transformer.POOL;
    private static final String LOCKS = "java/util/concurrent/locks/LockSupport";

    private PoolHooks() {}

    static void apply(ClassNode cn, Set<String> missing) {
        int ctors = 0;
        for (MethodNode m : cn.methods)
            if (m.name.equals("<init>") && callsSuper(m)) {
                constructor(m);
                ctors++;
            }
        if (ctors == 0) missing.add("constructors");
        runWorker(Transformer.method(cn, "runWorker", null), missing);
        submit(Transformer.method(cn, "externalSubmit", null), "submit", missing);
        submit(Transformer.method(cn, "externalPush", null), "submitIfNone", missing);
        awaitWork(Transformer.method(cn, "awaitWork", null), missing);
        signalWork(Transformer.method(cn, "signalWork", "()V"), missing);
        mode(Transformer.method(cn, "getAndBitwiseOrMode", "(I)I"), missing);
        block(Transformer.method(cn, "compensatedBlock", null), 1, missing);
        block(Transformer.method(cn, "unmanagedBlock", null), 0, missing);
    }

    /* A constructor that does not delegate to another (this(...)): the
     * pool's id, its pool_begin, once it is built. The common pool's is the
     * private one taking a byte. */
    private static boolean callsSuper(MethodNode m) {
        for (AbstractInsnNode i : m.instructions)
            if (i instanceof MethodInsnNode && ((MethodInsnNode) i).name.equals("<init>"))
                return !((MethodInsnNode) i).owner.equals(P);
        return false;
    }

    private static void constructor(MethodNode m) {
        boolean common = m.desc.equals("(B)V");
        Code.atReturns(m, () -> of(load(0), load(0),
                new MethodInsnNode(INVOKEVIRTUAL, P, "getParallelism", "()I", false),
                new InsnNode(common ? ICONST_1 : ICONST_0), hook("poolBegin", "(IZ)I"), setPoolId()));
    }

    private static void runWorker(MethodNode m, Set<String> missing) {
        if (m == null) {
            missing.add("runWorker");
            return;
        }
        m.instructions.insert(of(load(0), poolId(), hook("workerBegin", "(I)V")));
        Code.atExits(m, () -> of(load(0), poolId(), hook("workerEnd", "(I)V")));
    }

    /* externalSubmit(task) / externalPush(task): the task's id first. */
    private static void submit(MethodNode m, String hookName, Set<String> missing) {
        if (m == null) {
            missing.add(hookName);
            return;
        }
        m.instructions.insert(of(load(1), load(1), taskId(), load(0), poolId(),
                hook(hookName, "(JI)J"), setTaskId()));
    }

    /* awaitWork: an idle worker parks and unparks. */
    private static void awaitWork(MethodNode m, Set<String> missing) {
        int n = 0;
        if (m != null) {
            for (String park : new String[] {"park", "parkUntil", "parkNanos"})
                for (AbstractInsnNode i : Code.calls(m, LOCKS, park)) {
                    m.instructions.insertBefore(i, of(hook("park", "()V")));
                    m.instructions.insert(i, of(hook("unpark", "()V")));
                    n++;
                }
        }
        if (n == 0) missing.add("awaitWork's park");
    }

    /* signalWork unparks an idle worker: stack holds its thread. */
    private static void signalWork(MethodNode m, Set<String> missing) {
        int n = 0;
        if (m != null) {
            for (AbstractInsnNode i : Code.calls(m, LOCKS, "unpark")) {
                m.instructions.insertBefore(i, of(new InsnNode(DUP), hook("wake", "(Ljava/lang/Thread;)V")));
                n++;
            }
        }
        if (n == 0) missing.add("signalWork's unpark");
    }

    /* getAndBitwiseOrMode(bits) returns the old mode: TERMINATED set now
     * ends the pool. */
    private static void mode(MethodNode m, Set<String> missing) {
        if (m == null) {
            missing.add("getAndBitwiseOrMode");
            return;
        }
        for (AbstractInsnNode i : m.instructions.toArray())
            if (i.getOpcode() == IRETURN)
                m.instructions.insertBefore(i, of(new InsnNode(DUP), load(0), poolId(),
                        new VarInsnNode(ILOAD, 1), hook("mode", "(III)V")));
    }

    /* A managed block (compensatedBlock, unmanagedBlock): blocker in local. */
    private static void block(MethodNode m, int blocker, Set<String> missing) {
        if (m == null) {
            missing.add("managed blocks");
            return;
        }
        InsnList begin = of(load(blocker), hook("blockBegin", "(Ljava/lang/Object;)V"));
        m.instructions.insert(begin);
        Code.atExits(m, () -> of(hook("blockEnd", "()V")));
    }
}
