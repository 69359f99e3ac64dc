package dev.txinbox.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * A harness run's results, written once at its end: JSON for tools and markdown for the docs, as
 * {@code <out>/<size>-<yyyyMMdd-HHmm>.json} and {@code .md} (bench/results, chaos/results; bench/ab's are
 * {@code ab-<yyyyMMdd-HHmm>}). Both start with the command; what follows is the suite's.
 */
public abstract class Report<S extends Options.Suite> {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    protected final Options<? extends S> options;

    protected Report(Options<? extends S> options) {
        this.options = options;
    }

    /** What the files' names start with, before the time: the run's size unless a report says otherwise. */
    protected String name() {
        return options.size();
    }

    /** The suite's part of the JSON document, after {@code command}. */
    protected abstract void document(Map<String, Object> doc);

    /** The suite's part of the markdown, after the command line. */
    protected abstract void markdown(StringBuilder md);

    public final Map<String, Object> document() {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("command", options.command());
        document(doc);
        return doc;
    }

    public final String markdown() {
        StringBuilder md = new StringBuilder();
        md.append("Command: `").append(options.command()).append("`  \n");
        markdown(md);
        return md.toString();
    }

    /** Writes both files, and prints the markdown and where they went. */
    public final void write() throws IOException {
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmm"));
        Path json = options.out().resolve(name() + "-" + stamp + ".json");
        Path markdown = options.out().resolve(name() + "-" + stamp + ".md");
        String text = markdown();
        JSON.writeValue(json.toFile(), document());
        Files.writeString(markdown, text);
        System.out.println();
        System.out.println(text);
        System.out.println("results: " + json + " and " + markdown);
    }
}
