package dev.txinbox.harness;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A harness's command line: bare flags such as {@code --quick}, {@code --name=value} options and, for a
 * script that takes them (bench/ab's two builds), positional arguments, in the order given; plus the command
 * as a report shows it: without the paths its script passes (first, before the user's), but with one the user
 * gave again, such as {@code bench/run --jar=<another build>}, which wins and names what ran.
 */
public record CommandLine(Set<String> flags, Map<String, String> options, List<String> arguments, String display) {

    /** {@code positionals}: how many bare words are arguments; any other bare word is refused. */
    public static CommandLine parse(String script, String[] args, Set<String> knownFlags, Set<String> hidden,
            int positionals) {
        Set<String> flags = new LinkedHashSet<>();
        Map<String, String> options = new LinkedHashMap<>();
        List<String> arguments = new ArrayList<>();
        List<String> shown = new ArrayList<>(List.of(script));
        Set<String> passed = new LinkedHashSet<>();
        for (String arg : Arrays.asList(args)) {
            if (knownFlags.contains(arg)) {
                flags.add(arg);
            } else if (!arg.startsWith("--") && arguments.size() < positionals) {
                arguments.add(arg);
            } else {
                String[] kv = arg.split("=", 2);
                if (kv.length != 2 || !kv[0].startsWith("--")) {
                    throw new IllegalArgumentException("expected one of " + knownFlags + " or --name=value, got " + arg);
                }
                options.put(kv[0], kv[1]);
                if (hidden.contains(kv[0]) && passed.add(kv[0])) {
                    continue;
                }
            }
            shown.add(arg);
        }
        return new CommandLine(flags, options, arguments, String.join(" ", shown));
    }
}
