package dev.txinbox.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** CPU time and memory of processes, read from /proc (Linux). Clock ticks are 1/100 s here. */
public final class Proc {

    private static final double MS_PER_TICK = 10.0;

    private Proc() {
    }

    /** User + system CPU of one process, in milliseconds; 0 once it is gone. */
    public static double cpuMillis(long pid) {
        long[] fields = stat(pid);
        return fields == null ? 0 : (fields[0] + fields[1]) * MS_PER_TICK;
    }

    /**
     * CPU of the whole PostgreSQL server: every live postgres process, plus what the postmaster collected
     * from backends that have exited (its children's time).
     */
    public static double postgresCpuMillis() {
        double total = 0;
        for (long pid : pidsNamed("postgres")) {
            long[] fields = stat(pid);
            if (fields != null) {
                total += (fields[0] + fields[1] + fields[2] + fields[3]) * MS_PER_TICK;
            }
        }
        return total;
    }

    /**
     * CPU of the PostgreSQL backends connected to {@code database}, by pid, in milliseconds: the processes whose title
     * ({@code postgres: 15/main: <user> <database> <client> <state>}) names it. What the consumer's own connections
     * cost, apart from other databases' backends and from the server's shared background processes.
     */
    public static java.util.Map<Long, Double> postgresBackendsCpuMillis(String database) {
        java.util.Map<Long, Double> byPid = new java.util.HashMap<>();
        for (long pid : pidsNamed("postgres")) {
            try {
                String title = Files.readString(Path.of("/proc/" + pid + "/cmdline")).replace('\0', ' ').trim();
                if (!List.of(title.split("\\s+")).contains(database)) {
                    continue;
                }
            } catch (IOException e) {
                continue;
            }
            long[] fields = stat(pid);
            if (fields != null) {
                byPid.put(pid, (fields[0] + fields[1]) * MS_PER_TICK);
            }
        }
        return byPid;
    }

    /** This JVM's own CPU: how a baseline reports itself as it exits, and the producer's share. */
    public static double ownCpuMillis() {
        return java.lang.management.ManagementFactory.getPlatformMXBean(com.sun.management.OperatingSystemMXBean.class)
                .getProcessCpuTime() / 1e6;
    }

    /** Busy CPU of the whole machine (all cores, everything but idle and iowait), in milliseconds. */
    public static double machineBusyMillis() {
        try {
            String[] cpu = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long busy = 0;
            for (int i = 1; i < cpu.length && i <= 8; i++) {
                if (i != 4 && i != 5) {
                    busy += Long.parseLong(cpu[i]);
                }
            }
            return busy * MS_PER_TICK;
        } catch (IOException e) {
            return 0;
        }
    }

    /** Resident memory in MiB, 0 once the process is gone. */
    public static double rssMiB(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
                }
            }
        } catch (IOException e) {
            // gone
        }
        return 0;
    }

    /**
     * CPU per live thread of a process, in milliseconds, keyed {@code name/tid} with the name's digits removed
     * ("txinbox-orders-3" is "txinbox-orders-N"): where a JVM's CPU goes, without a profiler. Keyed by thread, not
     * summed by name, because the JVM ends threads it no longer needs (compiler threads among them): a sum by name
     * taken before and after such an end falls, and its difference comes out negative. {@link #threadCpuDeltas}
     * takes the difference thread by thread.
     */
    public static java.util.Map<String, Double> threadCpuMillis(long pid) {
        java.util.Map<String, Double> byThread = new java.util.TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : tasks.toList()) {
                long tid = Long.parseLong(task.getFileName().toString());
                long[] fields = stat(pid + "/task/" + tid);
                String name = comm(pid + "/task/" + tid).replaceAll("[0-9]+", "N");
                if (fields != null) {
                    byThread.put(name + "/" + tid, (fields[0] + fields[1]) * MS_PER_TICK);
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone
        }
        return byThread;
    }

    /**
     * The CPU each thread name spent between two {@link #threadCpuMillis} readings: for every thread alive at the
     * second, what it spent since the first (all of it, if it began since). A thread that ended in between is not
     * counted: /proc keeps nothing of it, and its process's total (from its own stat) is the figure that holds it.
     */
    public static java.util.Map<String, Double> threadCpuDeltas(java.util.Map<String, Double> before,
            java.util.Map<String, Double> after) {
        java.util.Map<String, Double> byName = new java.util.TreeMap<>();
        after.forEach((thread, ms) -> {
            int slash = thread.lastIndexOf('/');
            String name = slash < 0 ? thread : thread.substring(0, slash);
            byName.merge(name, ms - before.getOrDefault(thread, 0.0), Double::sum);
        });
        return byName;
    }

    /** utime, stime, cutime, cstime. */
    private static long[] stat(long pid) {
        return stat(Long.toString(pid));
    }

    private static long[] stat(String pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] rest = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // after "pid (comm) ": state is field 3, utime field 14 -> rest[11]
            return new long[] { Long.parseLong(rest[11]), Long.parseLong(rest[12]), Long.parseLong(rest[13]),
                    Long.parseLong(rest[14]) };
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static List<Long> pidsNamed(String name) {
        try (Stream<Path> entries = Files.list(Path.of("/proc"))) {
            return entries.map(p -> p.getFileName().toString()).filter(s -> s.chars().allMatch(Character::isDigit))
                    .map(Long::parseLong).filter(pid -> name.equals(comm(pid))).toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    private static String comm(long pid) {
        return comm(Long.toString(pid));
    }

    private static String comm(String pid) {
        try {
            return Files.readString(Path.of("/proc/" + pid + "/comm")).trim();
        } catch (IOException e) {
            return "";
        }
    }
}
