/*
 * The rewritten ForkJoinPool, ForkJoinTask and CountedCompleter kept
 * between runs (docs/java.md, "Cost"): rewriting them with ASM is most of
 * the agent's start-up (about 0.1 s of CPU per JVM, bench/RESULTS-java.md),
 * and the result depends only on the JDK's class bytes, the agent and ASM.
 *
 * An entry is DIR/NAME-KEY.class: KEY the CRC-32 and length of the JDK's
 * bytes and the CRC-32 of the agent's and ASM's jars, so that another JDK
 * update, agent or ASM misses; its content the rewritten bytes after their
 * own CRC-32, checked on reading (a damaged entry is rewritten). Entries
 * are written to a temporary file and renamed, so a reader never sees half
 * of one. DIR is $FJTRACE_JAVA_CACHE ("off": no cache), else
 * $XDG_CACHE_HOME/fjtrace/java, else ~/.cache/fjtrace/java; it is used
 * only when it is this user's and no one else may write it (its entries
 * become part of java.base).
 */
package fjtrace.agent;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.zip.CRC32;

final class Cache {
    private static Path dir;
    private static long tools; /* CRC-32 of the agent's and ASM's jars */

    private Cache() {}

    /* Sets the cache up: any failure leaves it off (the agent then rewrites
     * the classes every time, as without it). */
    static void init(Class<?>... from) {
        try {
            Path d = directory();
            if (d == null) return;
            CRC32 crc = new CRC32();
            for (Class<?> c : from)
                crc.update(Files.readAllBytes(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI())));
            Files.createDirectories(d, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            if (!safe(d)) {
                Agent.warn("the class cache " + d + " is not this user's alone: not used");
                return;
            }
            tools = crc.getValue();
            dir = d;
        } catch (Exception e) {
            dir = null;
        }
    }

    private static Path directory() {
        String env = System.getenv("FJTRACE_JAVA_CACHE");
        if (env != null) return env.isEmpty() || env.equals("off") ? null : Path.of(env);
        String xdg = System.getenv("XDG_CACHE_HOME");
        if (xdg != null && !xdg.isEmpty()) return Path.of(xdg, "fjtrace", "java");
        String home = System.getProperty("user.home");
        return home == null || home.isEmpty() ? null : Path.of(home, ".cache", "fjtrace", "java");
    }

    /* Owned by this user, writable by no one else. */
    private static boolean safe(Path d) throws IOException {
        PosixFileAttributes a = Files.readAttributes(d, PosixFileAttributes.class);
        Set<PosixFilePermission> p = a.permissions();
        return a.isDirectory() && a.owner().getName().equals(System.getProperty("user.name"))
                && !p.contains(PosixFilePermission.GROUP_WRITE) && !p.contains(PosixFilePermission.OTHERS_WRITE);
    }

    private static Path entry(String name, byte[] original) {
        CRC32 crc = new CRC32();
        crc.update(original);
        return dir.resolve(name.replace('/', '.') + "-" + Long.toHexString(crc.getValue()) + "-"
                + Integer.toHexString(original.length) + "-" + Long.toHexString(tools) + ".class");
    }

    /* The rewritten bytes of name kept for these original bytes, or null. */
    static byte[] get(String name, byte[] original) {
        if (dir == null) return null;
        try {
            byte[] b = Files.readAllBytes(entry(name, original));
            if (b.length < 8) return null;
            CRC32 crc = new CRC32();
            crc.update(b, 8, b.length - 8);
            return ByteBuffer.wrap(b).getLong() == crc.getValue() ? java.util.Arrays.copyOfRange(b, 8, b.length) : null;
        } catch (IOException e) {
            return null; /* not kept yet */
        }
    }

    static void put(String name, byte[] original, byte[] rewritten) {
        if (dir == null) return;
        Path tmp = null;
        try {
            CRC32 crc = new CRC32();
            crc.update(rewritten);
            ByteBuffer b = ByteBuffer.allocate(8 + rewritten.length);
            b.putLong(crc.getValue()).put(rewritten);
            tmp = Files.createTempFile(dir, ".entry", ".tmp");
            Files.write(tmp, b.array());
            Files.move(tmp, entry(name, original), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            tmp = null;
        } catch (IOException e) {
            Agent.warn("cannot keep " + name + " in the class cache " + dir + " (" + e + ")");
        } finally {
            if (tmp != null) new File(tmp.toString()).delete();
        }
    }
}
