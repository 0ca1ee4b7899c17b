/* ForkJoinTask and CountedCompleter (docs/java.md, "Mapping"). */
package fjtrace.agent;

import static fjtrace.agent.Code.*;

import java.util.Set;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TryCatchBlockNode;
import org.objectweb.asm.tree.VarInsnNode;

final class TaskHooks implements Opcodes {
    private static final String T = Transformer.TASK;
    /* The methods whose end gives a client its root's result. */
    private static final String[] RESULTS = {"join", "get", "quietlyJoin",
        "quietlyInvoke", "joinForPoolInvoke", "getForPoolInvoke", "awaitPoolInvoke"};

    private TaskHooks() {}

    static void apply(ClassNode cn, Set<String> missing) {
        fork(Transformer.method(cn, "fork", "()Ljava/util/concurrent/ForkJoinTask;"), missing);
        doExec(Transformer.method(cn, "doExec", "()I"), missing);
        awaitDone(Transformer.method(cn, "awaitDone", null), missing);
        invoke(Transformer.method(cn, "invoke", "()Ljava/lang/Object;"), missing);
        for (MethodNode m : cn.methods)
            for (String r : RESULTS)
                if (m.name.equals(r) && (m.access & ACC_STATIC) == 0) result(m);
    }

    /* fork(): the id first (its fork event then precedes the push). */
    private static void fork(MethodNode m, Set<String> missing) {
        if (m == null) {
            missing.add("fork");
            return;
        }
        m.instructions.insert(of(load(0), hook("fork", "()J"), setTaskId()));
    }

    /* invoke() of a task outside any pool runs it on the caller: a root of
     * the common pool run by its client; inside a task, a child run inline.
     * Its result names the id invoke gave, kept in a local: the task object
     * may be forked again while it runs (a parallel stream's task forks
     * itself as its right half), which gives its field another id. */
    private static void invoke(MethodNode m, Set<String> missing) {
        if (m == null) {
            missing.add("invoke");
            return;
        }
        int id = Code.newLongLocal(m);
        m.instructions.insert(of(load(0), load(0), taskId(),
                new FieldInsnNode(GETSTATIC, Transformer.POOL, "common", "L" + Transformer.POOL + ";"),
                poolId(), hook("invoke", "(JI)J"), new InsnNode(DUP2), new VarInsnNode(LSTORE, id),
                setTaskId()));
        Code.atExits(m, () -> of(load(0), new VarInsnNode(LLOAD, id),
                hook("result", "(Ljava/util/concurrent/Future;J)J"), new InsnNode(POP2)));
        Code.zeroAtStart(m, id);
    }

    /* doExec(): exec before the body (exec()), executed after it returns or
     * throws (doExec's own handler), both with the id read before the body
     * (kept in a local: the body may fork its own object again, see invoke). */
    private static void doExec(MethodNode m, Set<String> missing) {
        AbstractInsnNode call = m == null ? null : first(Code.calls(m, T, "exec"));
        if (call == null) {
            missing.add("doExec");
            return;
        }
        int id = Code.newLongLocal(m);
        Code.zeroAtStart(m, id);
        LabelNode known = new LabelNode();
        m.instructions.insertBefore(call, of(load(0), taskId(), new InsnNode(DUP2),
                new VarInsnNode(LSTORE, id), hook("exec", "(J)V"),
                load(0), firstId(), new InsnNode(LCONST_0), new InsnNode(LCMP),
                new JumpInsnNode(IFNE, known), load(0), new VarInsnNode(LLOAD, id),
                new FieldInsnNode(PUTFIELD, T, Code.TASK_FIRST, "J"), known));
        m.instructions.insert(call, of(new VarInsnNode(LLOAD, id), hook("executed", "(J)V")));
        for (TryCatchBlockNode tc : m.tryCatchBlocks) {
            if (covers(m, tc, call)) {
                AbstractInsnNode h = tc.handler;
                while (h.getOpcode() < 0) h = h.getNext(); /* past label, line, frame */
                m.instructions.insertBefore(h, of(new VarInsnNode(LLOAD, id), hook("executed", "(J)V")));
            }
        }
    }

    /* awaitDone: the join waits when it helps (helpJoin, helpComplete) or
     * parks; not when the task was done or still in our own queue (then
     * popped and run here: tryRemove, externalTryUnpush). */
    private static void awaitDone(MethodNode m, Set<String> missing) {
        if (m == null) {
            missing.add("awaitDone");
            return;
        }
        int n = 0;
        for (String[] c : new String[][] {{Transformer.POOL, "helpJoin"},
                {Transformer.POOL, "helpComplete"}, {"java/util/concurrent/locks/LockSupport", "park"},
                {"java/util/concurrent/locks/LockSupport", "parkNanos"}}) {
            for (AbstractInsnNode i : Code.calls(m, c[0], c[1])) {
                m.instructions.insertBefore(i, idHook(0, "joinWait"));
                n++;
            }
        }
        if (n == 0) missing.add("awaitDone's waits");
        Code.atExits(m, () -> idHook(0, "joinDone"));
    }

    private static void result(MethodNode m) {
        Code.atExits(m, () -> of(load(0), load(0), load(0), taskId(),
                hook("result", "(Ljava/util/concurrent/Future;J)J"), setTaskId()));
    }

    /* CountedCompleter: completing before each onCompletion, completed after
     * it (tryComplete, complete); propagateCompletion completes each level
     * with no hook. Named by the object's first id (Code.TASK_FIRST). */
    static void applyCompleter(ClassNode cn, Set<String> missing) {
        int n = 0;
        for (String name : new String[] {"tryComplete", "complete"}) {
            MethodNode m = Transformer.method(cn, name, null);
            if (m == null) continue;
            for (AbstractInsnNode call : Code.calls(m, Transformer.COMPLETER, "onCompletion")) {
                int id = Code.newLongLocal(m);
                Code.zeroAtStart(m, id);
                /* stack: completer, caller -> completer, caller (id kept) */
                InsnList before = of(new InsnNode(SWAP), new InsnNode(DUP_X1), firstId(),
                        new InsnNode(DUP2), new VarInsnNode(LSTORE, id), hook("completing", "(J)V"));
                m.instructions.insertBefore(call, before);
                m.instructions.insert(call, of(new VarInsnNode(LLOAD, id), hook("completed", "(J)V")));
                n++;
            }
        }
        MethodNode p = Transformer.method(cn, "propagateCompletion", "()V");
        if (p != null) {
            for (AbstractInsnNode i : p.instructions.toArray()) {
                if (i instanceof FieldInsnNode && ((FieldInsnNode) i).name.equals("completer")) {
                    p.instructions.insertBefore(i, of(new InsnNode(DUP), firstId(), hook("propagated", "(J)V")));
                    n++;
                }
            }
        }
        if (n == 0) missing.add("onCompletion calls");
    }

    private static AbstractInsnNode first(java.util.List<AbstractInsnNode> l) {
        return l.isEmpty() ? null : l.get(0);
    }

    private static boolean covers(MethodNode m, TryCatchBlockNode tc, AbstractInsnNode i) {
        int at = m.instructions.indexOf(i);
        return m.instructions.indexOf(tc.start) <= at && at < m.instructions.indexOf(tc.end);
    }
}
