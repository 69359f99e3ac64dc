package dev.txinbox.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import dev.txinbox.bench.AbSuite;
import dev.txinbox.bench.BenchSuite;
import dev.txinbox.chaos.ChaosSuite;

/**
 * The command lines of bench/run, bench/ab and chaos/run against their docs: every documented option is taken
 * and nothing undocumented is, every example command of the docs parses (with what the script adds), every
 * option's value reaches the option, and what is wrong is refused with a message naming it.
 */
class OptionsTest {

    /** What each script passes before the user's arguments. */
    private static final List<String> BENCH_SCRIPT = List.of("--endpoint=http://127.0.0.1:9334", "--broker-pid=4242",
            "--jar=target/quarkus-app/quarkus-run.jar");
    private static final List<String> AB_SCRIPT = List.of("--endpoint=http://127.0.0.1:9334", "--broker-pid=4242",
            "--jar=bench/target/ab/1111111/quarkus-app/quarkus-run.jar",
            "--jar-b=bench/target/ab/2222222/quarkus-app/quarkus-run.jar", "--commit-a=1111111", "--commit-b=2222222");
    private static final List<String> CHAOS_SCRIPT = List.of("--jar=target/quarkus-app/quarkus-run.jar",
            "--elasticmq-classpath=/m2/elasticmq.jar:/m2/h2.jar");

    /** A value other than the default for every option; a new option needs one here. */
    private static final Map<String, String> SAMPLES = Map.ofEntries(
            Map.entry("--messages", "1234"), Map.entry("--groups", "17"), Map.entry("--duplicates", "0.1"),
            Map.entry("--out-of-order", "0.2"), Map.entry("--poison", "0.3"), Map.entry("--seed", "99"),
            Map.entry("--http-port", "19999"), Map.entry("--jar", "other.jar"), Map.entry("--out", "/tmp/results"),
            Map.entry("--mode", "backlog"), Map.entry("--runs", "txinbox,naive"), Map.entry("--old-rows", "5000"),
            Map.entry("--curve-messages", "900"), Map.entry("--paced-seconds", "3"),
            Map.entry("--relay-paced-rate", "700"), Map.entry("--warm-up", "800"),
            Map.entry("--parallelism", "2"), Map.entry("--parallelism-curve", "1,3"),
            Map.entry("--group-curve", "2,20"), Map.entry("--payload-bytes", "64"),
            Map.entry("--producer-threads", "2"), Map.entry("--endpoint", "http://127.0.0.1:1"),
            Map.entry("--broker-pid", "77"), Map.entry("--scenarios", "kill,sigterm"),
            Map.entry("--kill-messages", "600"), Map.entry("--run", "relay"), Map.entry("--kills", "2"), Map.entry("--rate", "50"),
            Map.entry("--port", "9999"), Map.entry("--elasticmq-classpath", "/x.jar"),
            Map.entry("--backlog-warm-up", "700"), Map.entry("--fresh-messages", "3000,9000"),
            Map.entry("--fresh-relay", "off"), Map.entry("--fresh-broker", "off"), Map.entry("--rounds", "2"), Map.entry("--jar-b", "b.jar"),
            Map.entry("--commit-a", "abc1234"), Map.entry("--commit-b", "def5678"),
            Map.entry("--env-a", "OTEL_SDK_DISABLED=true"),
            Map.entry("--env-b", "A=1,B=2"),
            Map.entry("--env-c", "TXINBOX_OUTBOX_RELAY_ENABLED=false"), Map.entry("--bare-sends", "B"),
            Map.entry("--instances", "1,2x2"));

    @Test
    void benchTakesEveryDocumentedOptionAndNothingElse() throws IOException {
        assertDocumented(BenchSuite::new, "bench/README.md");
    }

    /**
     * bench/ab takes bench/run's options but those its paragraph names after "except", and its own before
     * that word.
     */
    @Test
    void abTakesBenchsOptionsButThoseOfOtherRuns() throws IOException {
        String paragraph = paragraph("bench/README.md", "`bench/ab` options (`--name=value`)");
        int except = paragraph.indexOf("except");
        assertTrue(except > 0, paragraph);
        Set<String> own = names(paragraph.substring(0, except));
        Set<String> excluded = names(paragraph.substring(except));
        Set<String> bench = typed(Options.parse(new BenchSuite(), "--help"));
        assertTrue(bench.containsAll(excluded), "bench/run takes every option bench/ab leaves out: " + excluded);
        Set<String> expected = new TreeSet<>(bench);
        expected.removeAll(excluded);
        expected.addAll(own);
        Options<AbSuite> ab = Options.parse(new AbSuite(), "--help");
        assertEquals(expected, typed(ab), "bench/README.md's bench/ab paragraph against the parser");
        for (String name : ab.names()) {
            assertTrue(SAMPLES.containsKey(name), "no sample value for " + name);
        }
    }

    @Test
    void abParsesTheDocumentedCommands() throws IOException {
        List<String> commands = examples("bench/README.md", "bench/ab");
        assertTrue(commands.size() >= 2, "examples found: " + commands);
        for (String command : commands) {
            Options<AbSuite> o = parse(new AbSuite(), AB_SCRIPT, command);
            assertEquals(command, o.command(), "the report shows the command without what the script passes");
            assertEquals(2, o.arguments().size());
        }
        Options<AbSuite> ab = parse(new AbSuite(), AB_SCRIPT, "bench/ab HEAD~1 HEAD --rounds=1 --messages=5000"
                + " --backlog-warm-up=2000");
        assertEquals(List.of("HEAD~1", "HEAD"), ab.arguments());
        // one run, whatever bench/run's defaults are: the backlog of txinbox, no scale point
        shows(ab, "--rounds=1", "--messages=5000", "--backlog-warm-up=2000",
                "--jar-b=bench/target/ab/2222222/quarkus-app/quarkus-run.jar");
        assertEquals(List.of("backlog"), ab.suite().modes());
        assertEquals(List.of("txinbox"), ab.suite().runs());
        assertFalse(ab.suite().scalePoint());
        shows(parse(new AbSuite(), AB_SCRIPT, "bench/ab a b --quick"), "--backlog-warm-up=5000", "--rounds=3");
        // a third side: its settings, with a blank pair and spaces around them dropped
        shows(parse(new AbSuite(), AB_SCRIPT, "bench/ab a a --env-a=OTEL_SDK_DISABLED=true"
                + " --env-c=X=1,,OTEL_TRACES_SAMPLER_ARG=0.1"), "--env-a=OTEL_SDK_DISABLED=true", "--env-b=",
                "--env-c=X=1,OTEL_TRACES_SAMPLER_ARG=0.1");
        shows(parse(new AbSuite(), AB_SCRIPT, "bench/ab a b"), "--env-c=(no side C)");
    }

    @Test
    void chaosTakesEveryDocumentedOptionAndNothingElse() throws IOException {
        assertDocumented(ChaosSuite::new, "docs/RELIABILITY.md");
    }

    @Test
    void benchParsesTheDocumentedCommands() throws IOException {
        List<String> commands = examples("bench/README.md", "bench/run");
        assertTrue(commands.size() >= 4, "examples found: " + commands);
        for (String command : commands) {
            Options<BenchSuite> o = parse(new BenchSuite(), BENCH_SCRIPT, command);
            assertEquals(command, o.command(), "the report shows the command without what the script passes");
        }
        Options<BenchSuite> quick = parse(new BenchSuite(), BENCH_SCRIPT, "bench/run --quick");
        assertEquals("quick", quick.size());
        assertEquals(10_000, quick.messages());
        shows(quick, "--old-rows=200000", "--curve-messages=3000", "--broker-pid=4242");
        Options<BenchSuite> subset = parse(new BenchSuite(), BENCH_SCRIPT,
                "bench/run --runs=txinbox,naive --messages=50000 --jfr");
        shows(subset, "--mode=concurrent"); // a subset of runs is measured in the concurrent mode
        assertTrue(subset.flag("--jfr"));
        Options<BenchSuite> scale = parse(new BenchSuite(), BENCH_SCRIPT,
                "bench/run --mode=backlog --runs=txinbox --old-rows=1000000");
        shows(scale, "--runs=txinbox,scale"); // --old-rows asks for the scale point
        Options<BenchSuite> full = parse(new BenchSuite(), BENCH_SCRIPT, "bench/run");
        assertEquals("full", full.size());
        shows(full, "--mode=concurrent,backlog", "--backlog-warm-up=50000");
        shows(quick, "--backlog-warm-up=5000");
        assertEquals(Path.of("bench/results"), full.out());
    }

    @Test
    void chaosParsesTheDocumentedCommandsAndCi() throws IOException {
        List<String> commands = examples("docs/RELIABILITY.md", "chaos/run");
        assertTrue(commands.size() >= 3, "examples found: " + commands);
        for (String command : commands) {
            assertEquals(command, parse(new ChaosSuite(), CHAOS_SCRIPT, command).command());
        }
        // .ci/run: CHAOS_SKIP_BUILD=1 chaos/run --quick
        Options<ChaosSuite> quick = parse(new ChaosSuite(), CHAOS_SCRIPT, "chaos/run --quick");
        assertEquals("quick", quick.size());
        assertEquals(2_500, quick.messages());
        assertEquals(200, quick.groups());
        shows(quick, "--kills=4", "--kill-messages=5000");
        assertEquals(Path.of("chaos/results"), quick.out());
        shows(parse(new ChaosSuite(), CHAOS_SCRIPT, "chaos/run --scenarios=kill,sigterm"), "--scenarios=kill,sigterm");
    }

    @Test
    void everyValueReachesItsOption() {
        checkValues(BenchSuite::new, BENCH_SCRIPT);
        checkValues(ChaosSuite::new, CHAOS_SCRIPT);
        List<String> abScript = new ArrayList<>(List.of("HEAD~1", "HEAD"));
        abScript.addAll(AB_SCRIPT);
        checkValues(AbSuite::new, abScript);
    }

    @Test
    void aPathTheUserGivesAgainWinsAndIsShown() {
        Options<BenchSuite> other = parse(new BenchSuite(), BENCH_SCRIPT,
                "bench/run --runs=relay --jar=bench/target/ab/1234567/quarkus-app/quarkus-run.jar");
        assertEquals(Path.of("bench/target/ab/1234567/quarkus-app/quarkus-run.jar"), other.jar());
        assertEquals("bench/run --runs=relay --jar=bench/target/ab/1234567/quarkus-app/quarkus-run.jar",
                other.command(), "the report names the build that ran");
    }

    @Test
    void anOptionGivenWinsOverQuick() {
        Options<BenchSuite> bench = Options.parse(new BenchSuite(), "--messages=5", "--quick", "--curve-messages=7");
        shows(bench, "--messages=5", "--curve-messages=7", "--warm-up=3000");
        Options<ChaosSuite> chaos = Options.parse(new ChaosSuite(), "--quick", "--kills=9", "--elasticmq-classpath=x");
        shows(chaos, "--kills=9", "--kill-messages=5000");
    }

    @Test
    void whatIsWrongIsRefusedByName() {
        assertRefused("unknown option --bogus (see docs/BENCHMARKS.md)", new BenchSuite(), "--bogus=1");
        assertRefused("unknown option --rate (see docs/BENCHMARKS.md)", new BenchSuite(), "--rate=1");
        assertRefused("unknown option --bogus (see docs/RELIABILITY.md)", new ChaosSuite(), "--bogus=1",
                "--elasticmq-classpath=x");
        assertRefused("unknown option --old-rows (see docs/RELIABILITY.md)", new ChaosSuite(), "--old-rows=1",
                "--elasticmq-classpath=x");
        assertRefused("--messages takes a number, got 'many'", new BenchSuite(), "--messages=many");
        assertRefused("--instances takes counts N or NxP (N instances of P workers each), 1 or more, comma-separated,"
                + " got '1,0'", new BenchSuite(), "--instances=1,0");
        assertRefused("--instances goes with the backlog mode's txinbox run: add --mode=backlog", new BenchSuite(),
                "--runs=txinbox", "--instances=2");
        assertRefused("--kills takes a number, got '2.5'", new ChaosSuite(), "--kills=2.5", "--elasticmq-classpath=x");
        assertRefused("expected one of [--quick, --jfr, --bare-sends, --help] or --name=value, got quick",
                new BenchSuite(), "quick");
        assertRefused("--bare-sends goes beside the backlog mode's txinbox run: add --mode=backlog", new BenchSuite(),
                "--runs=txinbox", "--bare-sends");
        assertRefused("expected one of [--quick, --help] or --name=value, got --jfr", new ChaosSuite(), "--jfr");
        assertRefused("--mode takes some of concurrent, backlog, fresh (comma-separated), got 'sideways'",
                new BenchSuite(), "--mode=sideways");
        assertRefused("--fresh-relay takes on, off or both, got 'maybe'", new BenchSuite(), "--fresh-relay=maybe");
        assertRefused("--runs takes some of txinbox,drain,naive,latency,curves,scale,relay,camel,dual-write,"
                + " got 'txinbox,nave'", new BenchSuite(), "--runs=txinbox,nave");
        assertRefused("dual-write runs in the fresh mode: add --mode=fresh", new BenchSuite(), "--runs=dual-write");
        assertRefused("--fresh-broker takes on or off, got 'yes'", new BenchSuite(), "--fresh-broker=yes");
        assertRefused("--old-rows is the backlog mode's scale point: add --mode=backlog", new BenchSuite(),
                "--mode=concurrent", "--old-rows=10");
        assertRefused("--scenarios takes some of kill,postgres,broker,two,slow,sigterm, got 'kil'", new ChaosSuite(),
                "--scenarios=kil", "--elasticmq-classpath=x");
        assertRefused("--elasticmq-classpath is required (chaos/run passes it)", new ChaosSuite(), "--quick");
        assertRefused("--backlog-warm-up takes 0 messages or more, got -1", new BenchSuite(), "--backlog-warm-up=-1");
        String[] ab = AB_SCRIPT.toArray(String[]::new);
        assertRefused("bench/ab takes revA and revB before its options, got HEAD", new AbSuite(),
                join("HEAD", ab));
        assertRefused("bench/ab takes revA and revB before its options, got none", new AbSuite(), ab);
        assertRefused("expected one of [--quick, --help] or --name=value, got c", new AbSuite(),
                join("a", join("b", join("c", ab))));
        assertRefused("unknown option --mode (see docs/BENCHMARKS.md)", new AbSuite(),
                join("a", join("b", join("--mode=concurrent", ab))));
        assertRefused("expected one of [--quick, --help] or --name=value, got --jfr", new AbSuite(),
                join("a", join("b", join("--jfr", ab))));
        assertRefused("--rounds takes 1 or more, got 0", new AbSuite(), join("a", join("b", join("--rounds=0", ab))));
        assertRefused("--jar-b is required (bench/ab passes it)", new AbSuite(), "a", "b");
        assertRefused("--env-b takes NAME=value pairs separated by commas, got 'sampled'", new AbSuite(),
                join("a", join("b", join("--env-b=sampled", ab))));
        assertRefused("--bare-sends takes A, B, C or none, got 'b'", new AbSuite(),
                join("a", join("b", join("--bare-sends=b", ab))));
        assertRefused("--bare-sends=C needs a side C (--env-c)", new AbSuite(),
                join("a", join("b", join("--bare-sends=C", ab))));
        assertRefused("--bare-sends goes beside the inbox's run, not the relay's", new AbSuite(),
                join("a", join("b", join("--run=relay", join("--bare-sends=A", ab)))));
    }

    @Test
    void helpListsEveryOptionWithItsValue() {
        Options<ChaosSuite> help = Options.parse(new ChaosSuite(), "--help", "--quick");
        assertTrue(help.help(), "--help needs nothing else, not even what the script passes");
        String usage = help.usage();
        for (String name : help.names()) {
            assertTrue(usage.contains("\n  " + name + "="), name + " in\n" + usage);
        }
        assertTrue(usage.contains("--kills=4\n"), usage);
        assertTrue(usage.contains("(docs/RELIABILITY.md)"), usage);
        assertTrue(Options.parse(new BenchSuite(), "--help").usage().contains("--runs=txinbox,drain,naive"));
        String ab = Options.parse(new AbSuite(), "--help").usage();
        assertTrue(ab.startsWith("usage: bench/ab <revA> <revB> [--quick] [--help]"), ab);
        assertTrue(ab.contains("\n  --rounds=3\n") && ab.contains("\n  --jar-b=   (bench/ab passes it)"), ab);
        assertFalse(Options.parse(new BenchSuite()).help());
    }

    // ------------------------------------------------------------------ helpers

    private static <S extends Options.Suite> void assertDocumented(Supplier<S> suite, String doc) throws IOException {
        Options<S> options = Options.parse(suite.get(), "--help");
        Set<String> parsed = new TreeSet<>(options.names());
        parsed.removeAll(options.fromScript());
        parsed.addAll(options.flags());
        Set<String> documented = documented(doc);
        // A path the script passes may be documented too, for a user who gives another (bench/run --jar).
        documented.removeAll(options.fromScript());
        // --quick is documented with the examples, --help after the list
        parsed.removeAll(Set.of(Options.QUICK, Options.HELP));
        documented.removeAll(Set.of(Options.QUICK, Options.HELP));
        assertEquals(parsed, documented, doc + "'s option list against the parser");
        for (String name : options.names()) {
            assertTrue(SAMPLES.containsKey(name), "no sample value for " + name);
        }
    }

    /** The options of a doc's "Options (`--name=value`): ..." paragraph. */
    private static Set<String> documented(String doc) throws IOException {
        return names(paragraph(doc, "Options (`--name=value`):"));
    }

    /** The paragraph of {@code doc} that starts with {@code opening}, without it. */
    private static String paragraph(String doc, String opening) throws IOException {
        String text = Files.readString(docs(doc));
        int start = text.indexOf(opening);
        assertTrue(start >= 0, doc + " has no paragraph opening with " + opening);
        return text.substring(start + opening.length(), text.indexOf("\n\n", start));
    }

    /** The options a text names: `--name`, as the docs quote them. */
    private static Set<String> names(String text) {
        Matcher m = Pattern.compile("`(--[a-z-]+)").matcher(text);
        Set<String> names = new TreeSet<>();
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    /** What a user may type: options and flags, not what the script passes, nor --quick and --help. */
    private static Set<String> typed(Options<?> options) {
        Set<String> typed = new TreeSet<>(options.names());
        typed.removeAll(options.fromScript());
        typed.addAll(options.flags());
        typed.removeAll(Set.of(Options.QUICK, Options.HELP));
        return typed;
    }

    private static String[] join(String first, String[] rest) {
        List<String> all = new ArrayList<>(List.of(first));
        all.addAll(List.of(rest));
        return all.toArray(String[]::new);
    }

    /** The example commands of a doc's code blocks (those of a list item indented), comments cut off. */
    private static List<String> examples(String doc, String script) throws IOException {
        List<String> commands = new ArrayList<>();
        boolean inCode = false;
        for (String untrimmed : Files.readAllLines(docs(doc))) {
            String line = untrimmed.strip();
            if (line.startsWith("```")) {
                inCode = !inCode;
            } else if (inCode && line.startsWith(script)) {
                commands.add(line.replaceAll("#.*", "").trim());
            }
        }
        return commands;
    }

    /** A doc by its path in the repository: the harness's method is bench/README.md, the chaos suite's docs/. */
    private static Path docs(String doc) {
        // Maven runs the tests in bench/
        Path path = Path.of("..", doc);
        return Files.exists(path) ? path : Path.of(doc);
    }

    private static <S extends Options.Suite> Options<S> parse(S suite, List<String> script, String command) {
        List<String> args = new ArrayList<>(script);
        String[] words = command.split("\\s+");
        args.addAll(List.of(words).subList(1, words.length));
        return Options.parse(suite, args.toArray(String[]::new));
    }

    private static <S extends Options.Suite> void checkValues(Supplier<S> suite, List<String> script) {
        for (String name : Options.parse(suite.get(), "--help").names()) {
            Set<String> args = new LinkedHashSet<>(script);
            args.removeIf(a -> a.startsWith(name + "="));
            args.add(name + "=" + SAMPLES.get(name));
            if (name.equals("--old-rows")) {
                args.add("--mode=backlog");
            }
            shows(Options.parse(suite.get(), args.toArray(String[]::new)), name + "=" + SAMPLES.get(name));
        }
    }

    /** The options take these values (as --help shows them). */
    private static void shows(Options<?> options, String... values) {
        String usage = options.usage();
        for (String value : values) {
            assertTrue(usage.contains("\n  " + value + "\n") || usage.contains("\n  " + value + " "),
                    value + " in\n" + usage);
        }
    }

    private static void assertRefused(String message, Options.Suite suite, String... args) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Options.parse(suite, args));
        assertEquals(message, e.getMessage());
    }
}
