package dev.txinbox;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The documentation's relative links resolve: every {@code [text](target)} and {@code ![alt](target)} in
 * README.md, docs/*.md, bench/README.md and bench/results/HISTORY.md names a file or directory that exists, and
 * a {@code #fragment} into a markdown file names one of its headings (as GitHub makes anchors of them). Links to
 * other sites, and anything inside code, are left alone. Also: the README's code map names every package of
 * src/main. Plain JUnit: no Quarkus, no database.
 */
class DocsLinksTest {

    private static final Pattern INLINE_LINK = Pattern.compile("!?\\[(?:[^\\]\\[]|\\[[^\\]]*\\])*\\]\\(\\s*(<[^>]*>|[^)\\s]+)(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern REFERENCE_DEFINITION = Pattern.compile("^\\s{0,3}\\[[^\\]]+\\]:\\s*(<[^>]*>|\\S+)");
    private static final Pattern HEADING = Pattern.compile("^\\s{0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");

    private final Path root = findRoot();
    private final Map<Path, Set<String>> anchorsByFile = new HashMap<>();

    @Test
    void everyRelativeLinkInTheDocsResolves() throws IOException {
        List<Path> documents = documents();
        assertTrue(documents.contains(root.resolve("README.md")), "README.md not found under " + root);
        List<String> broken = new ArrayList<>();
        for (Path document : documents) {
            for (Link link : links(document)) {
                String problem = check(document, link.target());
                if (problem != null) {
                    broken.add(root.relativize(document) + ":" + link.line() + ": (" + link.target() + ") " + problem);
                }
            }
        }
        if (!broken.isEmpty()) {
            fail(broken.size() + " broken link(s):\n" + String.join("\n", broken));
        }
    }

    @Test
    void theReadmesCodeMapNamesEveryPackage() throws IOException {
        Path sources = root.resolve("src/main/java/dev/txinbox");
        String readme = Files.readString(root.resolve("README.md"));
        int start = readme.indexOf("\n## Code map");
        assertTrue(start >= 0, "README.md has no '## Code map' heading");
        int end = readme.indexOf("\n## ", start + 1);
        String codeMap = readme.substring(start, end < 0 ? readme.length() : end);
        Set<String> missing = new TreeSet<>();
        try (Stream<Path> walk = Files.walk(sources)) {
            for (Path dir : walk.filter(Files::isDirectory).collect(Collectors.toList())) {
                boolean hasSources;
                try (Stream<Path> files = Files.list(dir)) {
                    hasSources = files.anyMatch(f -> f.toString().endsWith(".java"));
                }
                if (!hasSources) {
                    continue;
                }
                String name = sources.relativize(dir).toString().replace('/', '.').replace('\\', '.');
                if (!codeMap.contains("`" + name + "`")) {
                    missing.add(name);
                }
            }
        }
        assertTrue(missing.isEmpty(), "README.md's code map does not name package(s) " + missing);
    }

    private List<Path> documents() throws IOException {
        List<Path> documents = new ArrayList<>();
        documents.add(root.resolve("README.md"));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(documents::add);
        }
        for (String extra : List.of("bench/README.md", "bench/results/HISTORY.md")) {
            Path path = root.resolve(extra);
            if (Files.isRegularFile(path)) {
                documents.add(path);
            }
        }
        return documents;
    }

    private String check(Path document, String rawTarget) {
        String target = rawTarget.startsWith("<") && rawTarget.endsWith(">")
                ? rawTarget.substring(1, rawTarget.length() - 1)
                : rawTarget;
        if (SCHEME.matcher(target).find() || target.startsWith("//")) {
            return null; // another site, or mailto:
        }
        String path = target;
        String fragment = null;
        int hash = target.indexOf('#');
        if (hash >= 0) {
            path = target.substring(0, hash);
            fragment = target.substring(hash + 1);
        }
        int query = path.indexOf('?');
        if (query >= 0) {
            path = path.substring(0, query);
        }
        Path file;
        if (path.isEmpty()) {
            file = document;
        } else {
            String decoded = path.replace("%20", " ");
            file = decoded.startsWith("/") ? root.resolve(decoded.substring(1)) : document.getParent().resolve(decoded);
            file = file.normalize();
            if (!file.startsWith(root)) {
                return "points outside the repository";
            }
            if (!Files.exists(file)) {
                return "no such file: " + root.relativize(file);
            }
        }
        if (fragment == null || fragment.isEmpty() || !file.toString().endsWith(".md") || Files.isDirectory(file)) {
            return null;
        }
        Set<String> anchors = anchorsByFile.computeIfAbsent(file, DocsLinksTest::anchors);
        if (!anchors.contains(fragment.toLowerCase(Locale.ROOT))) {
            return "no heading #" + fragment + " in " + root.relativize(file);
        }
        return null;
    }

    /** The anchors GitHub gives a markdown file's headings, duplicates numbered -1, -2 … */
    static Set<String> anchors(Path file) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : outsideFences(file).values()) {
            Matcher heading = HEADING.matcher(line);
            if (!heading.matches()) {
                continue;
            }
            String slug = slug(heading.group(2));
            int count = seen.merge(slug, 1, Integer::sum);
            anchors.add(count == 1 ? slug : slug + "-" + (count - 1));
        }
        return anchors;
    }

    /** GitHub's anchor for a heading's text: its visible text, lower case, spaces to hyphens, punctuation gone. */
    static String slug(String heading) {
        String text = heading
                .replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1") // a link shows its text
                .replaceAll("<[^>]+>", "") // inline HTML
                .replace("`", "")
                .replace("*", "");
        StringBuilder slug = new StringBuilder();
        text.toLowerCase(Locale.ROOT).codePoints().forEach(c -> {
            if (c == ' ') {
                slug.append('-');
            } else if (c == '-' || c == '_' || Character.isLetterOrDigit(c)) {
                slug.appendCodePoint(c);
            }
        });
        return slug.toString();
    }

    private static List<Link> links(Path document) {
        List<Link> links = new ArrayList<>();
        for (Map.Entry<Integer, String> numbered : outsideFences(document).entrySet()) {
            String prose = withoutCodeSpans(numbered.getValue());
            Matcher inline = INLINE_LINK.matcher(prose);
            while (inline.find()) {
                links.add(new Link(numbered.getKey(), inline.group(1)));
            }
            Matcher reference = REFERENCE_DEFINITION.matcher(prose);
            if (reference.find()) {
                links.add(new Link(numbered.getKey(), reference.group(1)));
            }
        }
        return links;
    }

    /** The line with its `code spans` blanked out, so that a link shown as code is not taken for one. */
    static String withoutCodeSpans(String line) {
        StringBuilder out = new StringBuilder(line.length());
        int i = 0;
        while (i < line.length()) {
            if (line.charAt(i) != '`') {
                out.append(line.charAt(i++));
                continue;
            }
            int run = 0;
            while (i + run < line.length() && line.charAt(i + run) == '`') {
                run++;
            }
            String ticks = "`".repeat(run);
            int close = line.indexOf(ticks, i + run);
            if (close < 0) {
                out.append(ticks);
                i += run;
                continue;
            }
            out.append(" ".repeat(close + run - i));
            i = close + run;
        }
        return out.toString();
    }

    /** The file's lines outside fenced code blocks, by line number (from 1), in order. */
    private static Map<Integer, String> outsideFences(Path file) {
        Map<Integer, String> prose = new LinkedHashMap<>();
        String fence = null;
        List<String> lines = readLines(file);
        for (int i = 0; i < lines.size(); i++) {
            String trimmed = lines.get(i).stripLeading();
            if (fence != null) {
                if (trimmed.startsWith(fence)) {
                    fence = null;
                }
            } else if (trimmed.startsWith("```") || trimmed.startsWith("~~~")) {
                fence = trimmed.substring(0, 3);
            } else {
                prose.put(i + 1, lines.get(i));
            }
        }
        return prose;
    }

    private static List<String> readLines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path findRoot() {
        Path dir = Paths.get("").toAbsolutePath();
        for (Path candidate = dir; candidate != null; candidate = candidate.getParent()) {
            if (Files.isRegularFile(candidate.resolve("README.md")) && Files.isDirectory(candidate.resolve("docs"))
                    && Files.isRegularFile(candidate.resolve("pom.xml"))) {
                return candidate.normalize();
            }
        }
        return dir;
    }

    private record Link(int line, String target) {
    }
}
