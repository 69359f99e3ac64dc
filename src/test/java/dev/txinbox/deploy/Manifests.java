package dev.txinbox.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;

/**
 * The Kubernetes manifests under deploy/k8s: the files as written, and what each kustomization renders
 * (rendered once per test run), as YAML documents for the tests that check them.
 */
final class Manifests {

    static final Path K8S = Path.of("deploy/k8s");
    /** Kinds of the operators (Prometheus operator, KEDA) a local cluster usually lacks. */
    static final Set<String> OPERATOR_KINDS = Set.of("ServiceMonitor", "PrometheusRule", "ScaledObject");
    static final Set<String> BASE_KINDS = Set.of("ConfigMap", "Deployment", "Service", "PodDisruptionBudget",
            "NetworkPolicy", "ServiceMonitor", "PrometheusRule", "ScaledObject");
    /** What each kustomization must render; a new overlay needs its line here. */
    static final Map<Path, Expected> RENDERS = Map.of(
            K8S.resolve("base"), new Expected(null, BASE_KINDS, Set.of("Secret/txinbox-secrets")),
            K8S.resolve("overlays/local"), new Expected("txinbox",
                    Set.of("Namespace", "ConfigMap", "Secret", "Deployment", "Service", "PodDisruptionBudget",
                            "NetworkPolicy"),
                    Set.of()),
            K8S.resolve("overlays/aws"), new Expected("txinbox", union(BASE_KINDS, Set.of("ServiceAccount",
                    "TriggerAuthentication")), Set.of("Secret/txinbox-secrets")));

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    private static final Map<Path, List<Document>> RENDERED = new ConcurrentHashMap<>();

    private Manifests() {
    }

    /**
     * One rendering's expectations.
     *
     * @param namespace every namespaced object's namespace (null: none set)
     * @param kinds exactly the kinds rendered
     * @param external references (Kind/name) to objects the platform provides, not in the rendering
     */
    record Expected(String namespace, Set<String> kinds, Set<String> external) {
    }

    /** A YAML document: from a file, or one object of a rendering ({@code origin} says which). */
    record Document(String origin, JsonNode tree) {
        String kind() {
            return tree.path("kind").asText();
        }

        String name() {
            return tree.path("metadata").path("name").asText();
        }

        String id() {
            return kind() + "/" + name();
        }

        String where() {
            return origin + ": " + id();
        }

        <T> T as(Class<T> type) throws IOException {
            return YAML.treeToValue(tree, type);
        }
    }

    /** Every document of every YAML file under deploy/k8s, kustomizations and patches included. */
    static List<Document> files() throws IOException {
        List<Document> documents = new ArrayList<>();
        try (Stream<Path> files = Files.walk(K8S)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                documents.addAll(parse(file.toString(), Files.readString(file)));
            }
        }
        return documents;
    }

    /** What {@code kubectl apply -k dir} would apply, one document per object (rendered once per run). */
    static List<Document> rendered(Path dir) throws Exception {
        List<Document> objects = RENDERED.get(dir);
        if (objects == null) {
            objects = parse("kubectl kustomize " + dir, Kustomize.render(dir));
            RENDERED.put(dir, objects);
        }
        return objects;
    }

    /** What {@code kubectl kustomize dir} renders, not kept (a directory the tests made themselves). */
    static List<Document> renderedUncached(Path dir) throws Exception {
        return parse("kubectl kustomize " + dir, Kustomize.render(dir));
    }

    static List<Document> of(List<Document> objects, String kind) {
        return objects.stream().filter(d -> d.kind().equals(kind)).toList();
    }

    static Document only(List<Document> objects, String kind, String name) {
        List<Document> found = objects.stream().filter(d -> d.kind().equals(kind) && d.name().equals(name)).toList();
        assertEquals(1, found.size(), kind + "/" + name + " in " + (objects.isEmpty() ? "?" : objects.get(0).origin()));
        return found.get(0);
    }

    private static List<Document> parse(String origin, String text) throws IOException {
        List<Document> parsed = new ArrayList<>();
        try (YAMLParser parser = new YAMLFactory().createParser(text)) {
            for (JsonNode tree : YAML.readValues(parser, JsonNode.class).readAll()) {
                if (tree != null && !tree.isEmpty()) {
                    parsed.add(new Document(origin, tree));
                }
            }
        }
        return parsed;
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new HashSet<>(a);
        all.addAll(b);
        return Set.copyOf(all);
    }
}
