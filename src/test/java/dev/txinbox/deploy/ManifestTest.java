package dev.txinbox.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;

import dev.txinbox.ops.RetentionJob;
import dev.txinbox.support.Metrics;
import dev.txinbox.support.ServiceTest;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Every Kubernetes manifest and container file in the repository, read with typed models, checked
 * against the application as it really is: its health paths, port, settings and metric names.
 * Unknown fields (a typo, a field of another API version) fail the test.
 */
@QuarkusTest
class ManifestTest extends ServiceTest {

    private static final Path K8S = Path.of("deploy/k8s");
    private static final Map<String, Class<?>> TYPED = Map.of(
            "Deployment", Deployment.class, "Service", Service.class, "ConfigMap", ConfigMap.class,
            "ServiceAccount", ServiceAccount.class, "Namespace", Namespace.class,
            "PodDisruptionBudget", PodDisruptionBudget.class, "NetworkPolicy", NetworkPolicy.class,
            "ServiceMonitor", ServiceMonitor.class, "PrometheusRule", PrometheusRule.class);
    /** Settings read by libraries rather than by txinbox's configuration. */
    private static final Set<String> LIBRARY_VARIABLES = Set.of("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
            "JAVA_OPTS_APPEND", "TXINBOX_ADMIN_TOKEN");

    private final ObjectMapper yaml = new ObjectMapper(new YAMLFactory())
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    private final List<Document> documents = new ArrayList<>();

    @Inject
    RetentionJob retention;

    record Document(Path file, JsonNode tree) {
        String kind() {
            return tree.path("kind").asText();
        }
    }

    @BeforeEach
    void readManifests() throws IOException {
        try (Stream<Path> files = Files.walk(K8S)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                try (YAMLParser parser = new YAMLFactory().createParser(file.toFile())) {
                    for (JsonNode tree : yaml.readValues(parser, JsonNode.class).readAll()) {
                        if (tree != null && !tree.isEmpty()) {
                            documents.add(new Document(file, tree));
                        }
                    }
                }
            }
        }
    }

    @Test
    void everyManifestParsesWithItsTypedModelAndHasNoUnknownField() throws Exception {
        Set<String> kinds = new TreeSet<>();
        for (Document doc : documents) {
            if (doc.kind().equals("Kustomization") || doc.tree().has("$patch")) {
                continue;
            }
            kinds.add(doc.kind());
            Class<?> type = TYPED.get(doc.kind());
            if (type != null) {
                List<String> unknown = new ArrayList<>();
                unknownFields(yaml.treeToValue(doc.tree(), type), doc.kind(), unknown);
                assertTrue(unknown.isEmpty(), doc.file() + ": unknown fields " + unknown);
            } else {
                assertTrue(Set.of("ScaledObject", "TriggerAuthentication").contains(doc.kind()),
                        doc.file() + ": no model for kind " + doc.kind());
                assertEquals("keda.sh/v1alpha1", doc.tree().path("apiVersion").asText(), doc.file().toString());
                keda(doc);
            }
        }
        assertTrue(kinds.containsAll(Set.of("Deployment", "Service", "PodDisruptionBudget", "ServiceMonitor",
                "PrometheusRule", "ScaledObject", "NetworkPolicy", "ConfigMap")), "base kinds: " + kinds);
    }

    @Test
    void kustomizationsNameOnlyFilesThatExist() throws IOException {
        for (Document doc : documents) {
            if (!doc.kind().equals("Kustomization")) {
                continue;
            }
            Path dir = doc.file().getParent();
            List<String> paths = new ArrayList<>();
            doc.tree().path("resources").forEach(r -> paths.add(r.asText()));
            doc.tree().path("patches").forEach(p -> paths.add(p.path("path").asText()));
            assertFalse(paths.isEmpty(), doc.file().toString());
            for (String path : paths) {
                assertTrue(Files.exists(dir.resolve(path)), doc.file() + " names a missing " + path);
            }
        }
    }

    @Test
    void probesPortsAndScrapingMatchTheApplication() throws Exception {
        Deployment deployment = yaml.treeToValue(only("Deployment", K8S.resolve("base")).tree(), Deployment.class);
        Container container = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertEquals("/q/health/live", container.getLivenessProbe().getHttpGet().getPath());
        assertEquals("/q/health/ready", container.getReadinessProbe().getHttpGet().getPath());
        assertEquals("/q/health/started", container.getStartupProbe().getHttpGet().getPath());
        for (String path : List.of("/q/health/live", "/q/health/ready", "/q/health/started", "/q/metrics")) {
            io.restassured.RestAssured.given().get(path).then().statusCode(200);
        }
        assertEquals(8080, container.getPorts().get(0).getContainerPort(), "quarkus.http.port's default");
        assertEquals("http", container.getPorts().get(0).getName());
        assertEquals("http", container.getLivenessProbe().getHttpGet().getPort().getStrVal());
        assertTrue(deployment.getSpec().getTemplate().getSpec().getSecurityContext().getRunAsNonRoot());
        assertTrue(container.getSecurityContext().getReadOnlyRootFilesystem());
        assertEquals(List.of("ALL"), container.getSecurityContext().getCapabilities().getDrop());
        assertTrue(deployment.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds() > 80,
                "grace period must outlast the 20 s drain plus a 60 s transaction");

        Service service = yaml.treeToValue(only("Service", K8S.resolve("base")).tree(), Service.class);
        assertEquals("http", service.getSpec().getPorts().get(0).getTargetPort().getStrVal());
        ServiceMonitor monitor = yaml.treeToValue(only("ServiceMonitor", K8S.resolve("base")).tree(), ServiceMonitor.class);
        assertEquals("/q/metrics", monitor.getSpec().getEndpoints().get(0).getPath());
        assertEquals(service.getSpec().getPorts().get(0).getName(), monitor.getSpec().getEndpoints().get(0).getPort());
    }

    @Test
    void everyVariableTheManifestsSetIsASettingOfTheService() throws IOException {
        Set<String> known = settings();
        Set<String> unknown = new TreeSet<>();
        for (Document doc : documents) {
            if (doc.kind().equals("ConfigMap") && doc.tree().path("metadata").path("name").asText().equals("txinbox-config")) {
                doc.tree().path("data").fieldNames().forEachRemaining(name -> check(name, known, unknown, doc));
            }
            if (doc.kind().equals("Kustomization")) {
                for (JsonNode generator : doc.tree().path("secretGenerator")) {
                    if (generator.path("name").asText().equals("txinbox-secrets")) {
                        generator.path("literals").forEach(l -> check(l.asText().split("=")[0], known, unknown, doc));
                    }
                }
            }
            if (doc.kind().equals("Deployment") && doc.tree().path("metadata").path("name").asText().equals("txinbox")) {
                doc.tree().findValues("env").forEach(env -> env.forEach(e -> check(e.path("name").asText(), known, unknown, doc)));
            }
        }
        assertTrue(unknown.isEmpty(), "variables no setting reads: " + unknown);
    }

    @Test
    void alertRulesUseOnlyMetricsTheServiceExposes() throws IOException {
        retention.run(); // its counters appear after a first run, the outcome counter after a message
        String order = dev.txinbox.support.Events.unique("ord"), event = dev.txinbox.support.Events.unique("evt");
        queues.send("orders.fifo", order, dev.txinbox.support.Events.created(event, order, 1L, 100));
        // The outcome is counted after the message is settled with SQS, a moment after the commit.
        eventually().until(() -> Metrics.outcomes("orders", "processed") >= 1);
        Set<String> exposed = new HashSet<>();
        Matcher scraped = Pattern.compile("^(txinbox_[a-z_]+)", Pattern.MULTILINE).matcher(Metrics.scrape());
        while (scraped.find()) {
            exposed.add(scraped.group(1));
        }
        Set<String> missing = new TreeSet<>();
        for (Document doc : documents) {
            if (doc.kind().equals("PrometheusRule")) {
                Matcher used = Pattern.compile("(txinbox_[a-z_]+)").matcher(doc.tree().toString());
                while (used.find()) {
                    if (!exposed.contains(used.group(1))) {
                        missing.add(used.group(1));
                    }
                }
            }
        }
        assertTrue(missing.isEmpty(), "alerts on metrics the service does not expose: " + missing);
    }

    @Test
    void containerFilesRunAsNonRootOnThePortAndTheBuildOutput() throws IOException {
        String jvm = Files.readString(Path.of("src/main/docker/Dockerfile.jvm"));
        assertTrue(jvm.contains("\nUSER 185\n"));
        assertTrue(jvm.contains("\nEXPOSE 8080\n"));
        for (String layer : List.of("target/quarkus-app/lib/", "target/quarkus-app/*.jar", "target/quarkus-app/app/",
                "target/quarkus-app/quarkus/")) {
            assertTrue(jvm.contains("COPY --chown=185 " + layer), layer);
        }
        assertTrue(jvm.contains("JAVA_APP_JAR=\"/deployments/quarkus-run.jar\""), "the fast-jar's launcher");
        String nativeFile = Files.readString(Path.of("src/main/docker/Dockerfile.native-micro"));
        assertTrue(nativeFile.contains("\nUSER 1001\n"));
        assertTrue(nativeFile.contains("\nEXPOSE 8080\n"));
        assertTrue(nativeFile.contains("target/*-runner /work/application"));
        assertTrue(nativeFile.contains("ENTRYPOINT [\"./application\""));
        Set<String> ignored = Set.of(Files.readString(Path.of(".dockerignore")).split("\n"));
        assertTrue(ignored.containsAll(Set.of("*", "!target/*-runner", "!target/quarkus-app/*")));
    }

    private void keda(Document doc) {
        JsonNode spec = doc.tree().path("spec");
        if (doc.kind().equals("ScaledObject")) {
            if (spec.has("scaleTargetRef")) {
                assertEquals("txinbox", spec.path("scaleTargetRef").path("name").asText());
            }
            for (JsonNode trigger : spec.path("triggers")) {
                assertEquals("aws-sqs-queue", trigger.path("type").asText());
                assertTrue(trigger.path("metadata").path("queueURL").asText().endsWith("/orders.fifo"));
                assertTrue(trigger.path("metadata").path("queueLength").isTextual(), "KEDA metadata values are strings");
            }
        } else {
            assertEquals("aws", spec.path("podIdentity").path("provider").asText());
        }
    }

    private Document only(String kind, Path under) {
        List<Document> found = documents.stream().filter(d -> d.kind().equals(kind) && d.file().startsWith(under)
                && !d.tree().has("$patch")).toList();
        assertEquals(1, found.size(), kind + " under " + under);
        return found.get(0);
    }

    private static void check(String variable, Set<String> known, Set<String> unknown, Document doc) {
        if (!known.contains(variable) && !LIBRARY_VARIABLES.contains(variable)) {
            unknown.add(variable + " (" + doc.file() + ")");
        }
    }

    /** application.properties' keys as environment variables (every profile). */
    private static Set<String> settings() throws IOException {
        Properties properties = new Properties();
        try (var in = Files.newInputStream(Path.of("src/main/resources/application.properties"))) {
            properties.load(in);
        }
        Set<String> variables = new HashSet<>();
        for (String key : properties.stringPropertyNames()) {
            String name = key.startsWith("%") ? key.substring(key.indexOf('.') + 1) : key;
            variables.add(name.replaceAll("[^A-Za-z0-9]", "_").toUpperCase());
        }
        return variables;
    }

    /** Collects the paths of fields the typed model did not know (kept aside in additionalProperties). */
    private static void unknownFields(Object node, String path, List<String> unknown) throws Exception {
        if (node == null || !node.getClass().getPackageName().startsWith("io.fabric8")) {
            return;
        }
        for (Method getter : node.getClass().getMethods()) {
            if (getter.getParameterCount() != 0 || !getter.getName().startsWith("get")
                    || getter.getDeclaringClass() == Object.class) {
                continue;
            }
            Object value = getter.invoke(node);
            String field = getter.getName().substring(3);
            if (field.equals("AdditionalProperties") && value instanceof Map<?, ?> extra) {
                extra.keySet().forEach(k -> unknown.add(path + "." + k));
            } else if (value instanceof Collection<?> items) {
                for (Object item : items) {
                    unknownFields(item, path + "." + field, unknown);
                }
            } else if (value instanceof Map<?, ?> map) {
                for (Object item : map.values()) {
                    unknownFields(item, path + "." + field, unknown);
                }
            } else {
                unknownFields(value, path + "." + field, unknown);
            }
        }
    }
}
