package dev.txinbox.harness;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The command line of bench/run and chaos/run (docs/BENCHMARKS.md, docs/RELIABILITY.md): the options both
 * suites take are here, each suite's own are its {@link Suite} part. Parsed by {@link CommandLine}: bare
 * flags ({@code --quick}, {@code --help} and a suite's own) and {@code --name=value} options. {@code --quick}
 * shrinks the run (the suite says how); an option given on the command line wins over it. An unknown
 * option, or a value that does not parse, is refused with an {@link IllegalArgumentException} naming it.
 */
public final class Options<S extends Options.Suite> {

    public static final String QUICK = "--quick";
    public static final String HELP = "--help";
    /** The service jar; every script passes it. */
    public static final String JAR = "--jar";

    /** The shared options' values before the command line: a suite's full run, or its quick one. */
    public record Defaults(int messages, int groups, double poison, long seed, int httpPort, Path out) {
    }

    /** One {@code --name=value} option: its value as --help shows it, and what takes a value given for it. */
    public record Option(String name, Supplier<Object> value, Consumer<String> set) {
    }

    /** What one suite adds to the shared options. */
    public interface Suite {

        /** The script as a report shows the command: {@code bench/run}, {@code chaos/run}. */
        String script();

        /** Where the options are documented, for --help and the error an unknown option gets. */
        String docs();

        /** The shared options' values for a full ({@code quick} false) or a quick run. */
        Defaults defaults(boolean quick);

        /** Shrinks the suite's own sizes for {@code --quick}, before the command line's values. */
        void quick();

        /** The suite's own {@code --name=value} options. */
        List<Option> options();

        /** The suite's own bare flags, besides --quick and --help. */
        default Set<String> flags() {
            return Set.of();
        }

        /** Names of the positional arguments the suite requires before its options (none but bench/ab's). */
        default List<String> arguments() {
            return List.of();
        }

        /** Options its script passes itself (paths, a pid): the command a report shows leaves them out. */
        Set<String> fromScript();

        /**
         * Once every value is in (never for --help): flags, defaults that depend on what was given, and what
         * must hold between options.
         */
        default void complete(Options<?> options) {
        }
    }

    private final S suite;
    private final CommandLine line;
    private final boolean quick;
    private int messages;
    private int groups;
    private double duplicates = 0.05;
    private double outOfOrder = 0.05;
    private double poison;
    private long seed;
    private int httpPort;
    private Path jar = Path.of("target/quarkus-app/quarkus-run.jar");
    private Path out;

    private Options(S suite, CommandLine line) {
        this.suite = suite;
        this.line = line;
        this.quick = line.flags().contains(QUICK);
        Defaults defaults = suite.defaults(quick);
        messages = defaults.messages();
        groups = defaults.groups();
        poison = defaults.poison();
        seed = defaults.seed();
        httpPort = defaults.httpPort();
        out = defaults.out();
        if (quick) {
            suite.quick();
        }
    }

    public static <S extends Suite> Options<S> parse(S suite, String... args) {
        Options<S> o = new Options<>(suite, CommandLine.parse(suite.script(), args, flags(suite), fromScript(suite),
                suite.arguments().size()));
        Map<String, Option> known = new LinkedHashMap<>();
        for (Option option : o.all()) {
            known.put(option.name(), option);
        }
        o.line.options().forEach((name, value) -> {
            Option option = known.get(name);
            if (option == null) {
                throw new IllegalArgumentException("unknown option " + name + " (see " + suite.docs() + ")");
            }
            try {
                option.set().accept(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(name + " takes a number, got '" + value + "'");
            }
        });
        if (!o.help()) {
            if (o.line.arguments().size() != suite.arguments().size()) {
                throw new IllegalArgumentException(suite.script() + " takes " + String.join(" and ", suite.arguments())
                        + " before its options, got " + (o.line.arguments().isEmpty() ? "none"
                                : String.join(" ", o.line.arguments())));
            }
            suite.complete(o);
        }
        return o;
    }

    /**
     * {@link #parse} for a main: on --help prints {@link #usage} and exits 0; a command line it refuses ends
     * the process with exit 2 and the reason, instead of a stack trace.
     */
    public static <S extends Suite> Options<S> parseOrExit(S suite, String... args) {
        Options<S> options;
        try {
            options = parse(suite, args);
        } catch (IllegalArgumentException e) {
            System.err.println(suite.script() + ": " + e.getMessage());
            System.err.println(suite.script() + " " + HELP + " lists the options");
            System.exit(2);
            throw e; // not reached
        }
        if (options.help()) {
            System.out.print(options.usage());
            System.exit(0);
        }
        return options;
    }

    private List<Option> all() {
        List<Option> all = new ArrayList<>(List.of(
                new Option("--messages", () -> messages, v -> messages = Integer.parseInt(v)),
                new Option("--groups", () -> groups, v -> groups = Integer.parseInt(v)),
                new Option("--duplicates", () -> duplicates, v -> duplicates = Double.parseDouble(v)),
                new Option("--out-of-order", () -> outOfOrder, v -> outOfOrder = Double.parseDouble(v)),
                new Option("--poison", () -> poison, v -> poison = Double.parseDouble(v)),
                new Option("--seed", () -> seed, v -> seed = Long.parseLong(v)),
                new Option("--http-port", () -> httpPort, v -> httpPort = Integer.parseInt(v)),
                new Option(JAR, () -> jar, v -> jar = Path.of(v)),
                new Option("--out", () -> out, v -> out = Path.of(v))));
        all.addAll(suite.options());
        return all;
    }

    /** Every {@code --name=value} option this suite takes, shared ones first. */
    public List<String> names() {
        return all().stream().map(Option::name).toList();
    }

    /** Every flag this suite takes. */
    public Set<String> flags() {
        return flags(suite);
    }

    /** Options its script passes itself. */
    public Set<String> fromScript() {
        return fromScript(suite);
    }

    private static Set<String> flags(Suite suite) {
        Set<String> flags = new LinkedHashSet<>(List.of(QUICK));
        flags.addAll(suite.flags());
        flags.add(HELP);
        return flags;
    }

    private static Set<String> fromScript(Suite suite) {
        Set<String> fromScript = new LinkedHashSet<>(suite.fromScript());
        fromScript.add(JAR);
        return fromScript;
    }

    /** Every option with the value this command line gives it, and the flags; where they are documented. */
    public String usage() {
        StringBuilder usage = new StringBuilder("usage: ").append(suite.script());
        suite.arguments().forEach(a -> usage.append(" <").append(a).append('>'));
        flags().forEach(f -> usage.append(" [").append(f).append(']'));
        usage.append(" [--name=value ...]   (").append(suite.docs()).append(")\n");
        usage.append(quick ? "options, as a quick run takes them:\n" : "options, as a full run takes them:\n");
        Set<String> fromScript = fromScript();
        for (Option option : all()) {
            Object value = option.value().get();
            String shown = value instanceof List<?> list ? String.join(",", list.stream().map(String::valueOf).toList())
                    : String.valueOf(value);
            if (shown.length() > 60) {
                shown = shown.substring(0, 57) + "..."; // a classpath
            }
            usage.append("  ").append(option.name()).append('=').append(shown);
            if (fromScript.contains(option.name())) {
                usage.append("   (").append(suite.script()).append(" passes it)");
            }
            usage.append('\n');
        }
        return usage.toString();
    }

    /** A stream of the shared shape (groups, duplicates, out of order, poison) with these messages and seed. */
    public StreamSpec stream(int messages, int payloadBytes, long seed) {
        return new StreamSpec(messages, groups, duplicates, outOfOrder, poison, payloadBytes, seed);
    }

    /** Splits a comma-separated value: {@code a,b} is [a, b]; an empty value, none. */
    public static List<String> list(String csv) {
        return csv.isBlank() ? List.of() : Arrays.stream(csv.split(",")).map(String::trim).toList();
    }

    public S suite() {
        return suite;
    }

    /** {@code full} or {@code quick}: names the result files. */
    public String size() {
        return quick ? "quick" : "full";
    }

    public boolean quick() {
        return quick;
    }

    public boolean help() {
        return line.flags().contains(HELP);
    }

    /** Whether the command line has {@code flag}. */
    public boolean flag(String flag) {
        return line.flags().contains(flag);
    }

    /** Whether the command line gives {@code option} (as opposed to its default). */
    public boolean given(String option) {
        return line.options().containsKey(option);
    }

    /** The positional arguments, in order (as many as the suite names). */
    public List<String> arguments() {
        return line.arguments();
    }

    /** The command as a report shows it: the script and what was typed, without what the script passes. */
    public String command() {
        return line.display();
    }

    public int messages() {
        return messages;
    }

    public int groups() {
        return groups;
    }

    public long seed() {
        return seed;
    }

    /** The service's HTTP port (a suite running several instances gives the next ones the ports after it). */
    public int httpPort() {
        return httpPort;
    }

    public Path jar() {
        return jar;
    }

    /** Where results go: {@code <size>-<time>.json} and {@code .md}, and {@code logs/}. */
    public Path out() {
        return out;
    }

    public Path logs() {
        return out.resolve("logs");
    }
}
