package dev.txinbox.deploy;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * {@code kubectl kustomize DIR}: exactly what {@code kubectl apply -k DIR} would apply. No cluster needed.
 * A missing kubectl fails the test (it must not pass for want of the tool).
 */
final class Kustomize {

    private Kustomize() {
    }

    static String render(Path dir) throws IOException, InterruptedException {
        Path out = Files.createTempFile("kustomize-out", ".yaml");
        Path err = Files.createTempFile("kustomize-err", ".txt");
        try {
            Process process;
            try {
                process = new ProcessBuilder("kubectl", "kustomize", dir.toString())
                        .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                        .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            } catch (IOException e) {
                return fail("the manifest test renders " + dir + " with kubectl (as `kubectl apply -k` would) and "
                        + "cannot run it (" + e.getMessage() + "): a kubectl with kustomize v5 is needed: "
                        + "dev/test-setup installs one (`./mvnw verify` runs it)");
            }
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return fail("kubectl kustomize " + dir + " did not finish in 120 s");
            }
            String errors = Files.readString(err);
            if (process.exitValue() != 0) {
                return fail("kubectl kustomize " + dir + " failed (exit " + process.exitValue()
                        + "), so `kubectl apply -k " + dir + "` cannot work:\n"
                        + errors.lines().limit(12).reduce("", (a, b) -> a + "  " + b + "\n"));
            }
            String rendered = Files.readString(out);
            if (rendered.isBlank()) {
                return fail("kubectl kustomize " + dir + " rendered nothing: " + errors);
            }
            return rendered;
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
