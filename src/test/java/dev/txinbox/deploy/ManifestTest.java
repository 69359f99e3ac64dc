package dev.txinbox.deploy;

import static dev.txinbox.deploy.Manifests.BASE_KINDS;
import static dev.txinbox.deploy.Manifests.K8S;
import static dev.txinbox.deploy.Manifests.OPERATOR_KINDS;
import static dev.txinbox.deploy.Manifests.RENDERS;
import static dev.txinbox.deploy.Manifests.of;
import static dev.txinbox.deploy.Manifests.only;
import static dev.txinbox.deploy.Manifests.rendered;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.txinbox.deploy.Manifests.Document;
import dev.txinbox.deploy.Manifests.Expected;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.openshift.api.model.monitoring.v1.Endpoint;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;

/**
 * The Kubernetes manifests and container files, checked against the application as it is built: its health
 * paths, port and settings (read from its configuration tree, {@link ServiceSettings}), without starting it.
 * Every file is read with its typed model, and every kustomization (the base and each overlay) is rendered
 * with {@code kubectl kustomize}, which is what {@code kubectl apply -k} applies: the rendered objects are read
 * with the same typed models and checked (probes, ports, variables, references to generated Secrets,
 * namespaces, which kinds each overlay ships). Unknown fields (a typo, a field of another API version) fail
 * the test; so does a kustomization kubectl cannot render, and a missing kubectl. What needs the running
 * service (the probed paths answer, the alerts' metrics are exposed) is {@link ManifestServiceTest}'s.
 */
class ManifestTest {

    private static final Map<String, Class<?>> TYPED = Map.ofEntries(
            Map.entry("Deployment", Deployment.class), Map.entry("Service", Service.class),
            Map.entry("ConfigMap", ConfigMap.class), Map.entry("Secret", Secret.class),
            Map.entry("ServiceAccount", ServiceAccount.class), Map.entry("Namespace", Namespace.class),
            Map.entry("PodDisruptionBudget", PodDisruptionBudget.class),
            Map.entry("NetworkPolicy", NetworkPolicy.class), Map.entry("ServiceMonitor", ServiceMonitor.class),
            Map.entry("PrometheusRule", PrometheusRule.class));
    static final Set<String> HEALTH_PATHS = Set.of("/q/health/live", "/q/health/ready", "/q/health/started");
    /** Settings read by libraries rather than by txinbox's configuration. */
    private static final Set<String> LIBRARY_VARIABLES = Set.of("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
            "JAVA_OPTS_APPEND", "TXINBOX_ADMIN_TOKEN");

    private List<Document> documents;

    @BeforeEach
    void readManifests() throws IOException {
        documents = Manifests.files();
    }

    @Test
    void everyManifestFileParsesWithItsTypedModelAndHasNoUnknownField() throws Exception {
        Set<String> kinds = new TreeSet<>();
        for (Document doc : documents) {
            if (doc.kind().equals("Kustomization") || doc.tree().has("$patch")) {
                continue;
            }
            kinds.add(doc.kind());
            typed(doc);
        }
        assertTrue(kinds.containsAll(BASE_KINDS), "base kinds: " + kinds);
    }

    @Test
    void kustomizationsNameOnlyFilesThatExistAndEachIsRenderedHere() throws IOException {
        Set<Path> kustomizations = new TreeSet<>();
        for (Document doc : documents) {
            if (!doc.kind().equals("Kustomization")) {
                continue;
            }
            Path dir = Path.of(doc.origin()).getParent();
            kustomizations.add(dir);
            List<String> paths = new ArrayList<>();
            doc.tree().path("resources").forEach(r -> paths.add(r.asText()));
            doc.tree().path("patches").forEach(p -> paths.add(p.path("path").asText()));
            assertFalse(paths.isEmpty(), doc.origin());
            for (String path : paths) {
                assertFalse(path.isEmpty(), doc.origin() + ": a patch without a path");
                assertTrue(Files.exists(dir.resolve(path)), doc.origin() + " names a missing " + path);
            }
        }
        assertEquals(new TreeSet<>(RENDERS.keySet()), kustomizations, "the kustomizations this test renders");
    }

    @Test
    void everyKustomizationRendersIntoTypedObjectsInItsNamespace() throws Exception {
        for (Map.Entry<Path, Expected> render : RENDERS.entrySet()) {
            Expected expected = render.getValue();
            Set<String> kinds = new TreeSet<>();
            Set<String> ids = new HashSet<>();
            for (Document doc : rendered(render.getKey())) {
                kinds.add(doc.kind());
                assertTrue(ids.add(doc.id()), doc.where() + " rendered twice");
                typed(doc);
                String namespace = doc.tree().path("metadata").path("namespace").asText(null);
                if (doc.kind().equals("Namespace")) {
                    assertEquals(expected.namespace(), doc.name(), doc.where() + ": the namespace of the rest");
                    assertNull(namespace, doc.where());
                } else {
                    assertEquals(expected.namespace(), namespace, doc.where() + ": namespace");
                }
            }
            assertEquals(new TreeSet<>(expected.kinds()), kinds, render.getKey() + " renders these kinds");
        }
    }

    /**
     * The optional patch that caps the pods by the queue's message groups in flight (docs/SCALING.md) is in no
     * kustomization: rendered here over a copy of the aws overlay, as a user who adds it would.
     */
    @Test
    void theOptionalGroupsPatchRendersOverTheAwsOverlay() throws Exception {
        Path copy = Files.createTempDirectory("k8s-groups");
        try {
            try (Stream<Path> files = Files.walk(K8S)) {
                for (Path file : files.toList()) {
                    Path target = copy.resolve(K8S.relativize(file).toString());
                    if (Files.isDirectory(file)) {
                        Files.createDirectories(target);
                    } else {
                        Files.copy(file, target);
                    }
                }
            }
            Path kustomization = copy.resolve("overlays/aws/kustomization.yaml");
            String text = Files.readString(kustomization);
            String line = "  - path: scaledobject-patch.yaml\n";
            assertTrue(text.contains(line), "the aws overlay patches its ScaledObject with scaledobject-patch.yaml");
            Files.writeString(kustomization, text.replace(line, line + "  - path: scaledobject-groups-patch.yaml\n"));

            List<Document> objects = Manifests.renderedUncached(copy.resolve("overlays/aws"));
            Document scaled = only(objects, "ScaledObject", "txinbox");
            typed(scaled);
            JsonNode spec = scaled.tree().path("spec");
            List<String> types = new ArrayList<>();
            spec.path("triggers").forEach(t -> types.add(t.path("type").asText()));
            assertEquals(List.of("aws-sqs-queue", "aws-cloudwatch"), types, "the queue's trigger is kept beside the groups'");
            spec.path("triggers").forEach(t -> assertEquals("txinbox-sqs", t.path("authenticationRef").path("name").asText()));
            assertEquals("200", spec.path("advanced").path("scalingModifiers").path("target").asText());
            assertEquals(rendered(K8S.resolve("overlays/aws")).size(), objects.size(), "the same objects, one changed");
        } finally {
            try (Stream<Path> files = Files.walk(copy)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(file);
                }
            }
        }
    }

    @Test
    void theLocalOverlayLeavesOutTheOperatorsResourcesTheAwsOverlayKeepsThem() throws Exception {
        Set<String> local = kinds(rendered(K8S.resolve("overlays/local")));
        for (String kind : OPERATOR_KINDS) {
            assertFalse(local.contains(kind), "the local overlay renders a " + kind
                    + ": a local cluster usually has no Prometheus operator or KEDA, and apply -k would fail on it");
        }
        assertTrue(kinds(rendered(K8S.resolve("overlays/aws"))).containsAll(OPERATOR_KINDS),
                "the aws overlay scrapes, alerts and scales: " + OPERATOR_KINDS);
    }

    @Test
    void everyReferenceResolvesWithinItsRendering() throws Exception {
        for (Map.Entry<Path, Expected> render : RENDERS.entrySet()) {
            List<Document> objects = rendered(render.getKey());
            Map<String, Document> byId = objects.stream().collect(Collectors.toMap(Document::id, d -> d));
            Map<String, Reference> references = references(objects);
            Map<String, String> missing = new TreeMap<>();
            for (Map.Entry<String, Reference> ref : references.entrySet()) {
                Document target = byId.get(ref.getValue().target());
                if (target == null) {
                    missing.merge(ref.getValue().target(), ref.getKey(), (a, b) -> a + "; " + b);
                } else if (ref.getValue().key() != null) {
                    JsonNode data = target.tree().path("data");
                    assertTrue(data.has(ref.getValue().key()) || target.tree().path("stringData").has(ref.getValue().key())
                            || target.tree().path("binaryData").has(ref.getValue().key()),
                            ref.getKey() + ": no key " + ref.getValue().key() + " in " + target.where());
                }
            }
            assertEquals(render.getValue().external(), missing.keySet(),
                    render.getKey() + ": references to objects not rendered (object=referenced by: " + missing + ")");

            // Generated Secrets and ConfigMaps carry a hash of their content (a change rolls the pods); the
            // references above name them with it, kustomize having rewritten them.
            for (Document kustomization : documents) {
                if (!kustomization.kind().equals("Kustomization")
                        || !Path.of(kustomization.origin()).getParent().equals(render.getKey())) {
                    continue;
                }
                for (String generator : List.of("secretGenerator", "configMapGenerator")) {
                    for (JsonNode generated : kustomization.tree().path(generator)) {
                        String kind = generator.equals("secretGenerator") ? "Secret" : "ConfigMap";
                        Pattern hashed = Pattern.compile(Pattern.quote(generated.path("name").asText()) + "-[a-z0-9]{10}");
                        List<Document> found = objects.stream()
                                .filter(d -> d.kind().equals(kind) && hashed.matcher(d.name()).matches()).toList();
                        assertEquals(1, found.size(), render.getKey() + ": the generated " + kind + " "
                                + generated.path("name").asText() + " with its hash suffix");
                        assertTrue(references.values().stream().anyMatch(r -> r.target().equals(found.get(0).id())),
                                render.getKey() + ": nothing uses the generated " + found.get(0).id());
                    }
                }
            }
            for (Document doc : objects) {
                if (doc.kind().equals("Secret")) {
                    assertTrue(doc.name().matches(".+-[a-z0-9]{10}"), doc.where()
                            + ": a Secret in the manifests (credentials in git?); generate it or let the platform"
                            + " provide it");
                }
            }
        }
    }

    @Test
    void selectorsPickThePodsAndPortsTheyMean() throws Exception {
        for (Path render : RENDERS.keySet()) {
            List<Document> objects = rendered(render);
            Map<String, Deployment> deployments = new LinkedHashMap<>();
            for (Document doc : of(objects, "Deployment")) {
                deployments.put(doc.name(), doc.as(Deployment.class));
            }
            Map<String, String> txinboxPods = deployments.get("txinbox").getSpec().getTemplate().getMetadata().getLabels();
            for (Document doc : of(objects, "Service")) {
                Service service = doc.as(Service.class);
                List<Deployment> selected = deployments.values().stream()
                        .filter(d -> selects(service.getSpec().getSelector(), d.getSpec().getTemplate().getMetadata().getLabels()))
                        .toList();
                assertEquals(1, selected.size(), doc.where() + " selects the pods of one Deployment");
                Container container = selected.get(0).getSpec().getTemplate().getSpec().getContainers().get(0);
                for (ServicePort port : service.getSpec().getPorts()) {
                    assertNotNull(containerPort(container, port.getTargetPort()), doc.where() + ": targetPort "
                            + port.getTargetPort() + " is no port of " + selected.get(0).getMetadata().getName());
                }
            }
            for (Document doc : of(objects, "PodDisruptionBudget")) {
                assertTrue(selects(doc.as(PodDisruptionBudget.class).getSpec().getSelector().getMatchLabels(), txinboxPods),
                        doc.where());
            }
            for (Document doc : of(objects, "NetworkPolicy")) {
                assertTrue(selects(doc.as(NetworkPolicy.class).getSpec().getPodSelector().getMatchLabels(), txinboxPods),
                        doc.where());
            }
            for (Document doc : of(objects, "ServiceMonitor")) {
                Service service = only(objects, "Service", "txinbox").as(Service.class);
                ServiceMonitor monitor = doc.as(ServiceMonitor.class);
                assertTrue(selects(monitor.getSpec().getSelector().getMatchLabels(), service.getMetadata().getLabels()),
                        doc.where() + " selects the txinbox Service");
                for (Endpoint endpoint : monitor.getSpec().getEndpoints()) {
                    assertEquals("/q/metrics", endpoint.getPath(), doc.where());
                    assertTrue(service.getSpec().getPorts().stream().anyMatch(p -> p.getName().equals(endpoint.getPort())),
                            doc.where() + ": port " + endpoint.getPort());
                }
            }
        }
    }

    @Test
    void probesPortsAndSecurityMatchTheApplicationInEveryRendering() throws Exception {
        for (Path render : RENDERS.keySet()) {
            List<Document> objects = rendered(render);
            for (Document doc : of(objects, "Deployment")) {
                for (Container container : doc.as(Deployment.class).getSpec().getTemplate().getSpec().getContainers()) {
                    for (Probe probe : probes(container)) {
                        if (probe.getHttpGet() != null) {
                            assertNotNull(containerPort(container, probe.getHttpGet().getPort()),
                                    doc.where() + ": a probe on port " + probe.getHttpGet().getPort()
                                            + ", which is none of its ports");
                        }
                    }
                }
            }
            Document doc = only(objects, "Deployment", "txinbox");
            Deployment deployment = doc.as(Deployment.class);
            Container container = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
            assertEquals("/q/health/live", container.getLivenessProbe().getHttpGet().getPath(), doc.where());
            assertEquals("/q/health/ready", container.getReadinessProbe().getHttpGet().getPath(), doc.where());
            assertEquals("/q/health/started", container.getStartupProbe().getHttpGet().getPath(), doc.where());
            for (Probe probe : probes(container)) {
                assertTrue(HEALTH_PATHS.contains(probe.getHttpGet().getPath()), doc.where());
                ContainerPort port = containerPort(container, probe.getHttpGet().getPort());
                assertEquals(8080, port.getContainerPort(), doc.where() + ": probes on quarkus.http.port's default");
            }
            assertEquals("http", container.getPorts().get(0).getName(), doc.where());
            assertTrue(deployment.getSpec().getTemplate().getSpec().getSecurityContext().getRunAsNonRoot(), doc.where());
            assertTrue(container.getSecurityContext().getReadOnlyRootFilesystem(), doc.where());
            assertEquals(List.of("ALL"), container.getSecurityContext().getCapabilities().getDrop(), doc.where());
            assertTrue(deployment.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds() > 80,
                    doc.where() + ": grace period must outlast the 20 s drain plus a 60 s transaction");
        }
    }

    @Test
    void everyVariableTheRenderedServiceGetsIsASettingOfTheServiceAndTheRequiredOnesAreAllThere() throws Exception {
        ServiceSettings settings = ServiceSettings.read();
        assertTrue(settings.required().contains("QUARKUS_DATASOURCE_JDBC_URL"),
                "application.properties points the datasource at a developer's machine: " + settings.required());
        Set<String> unknown = new TreeSet<>();
        Map<Path, Set<String>> missing = new TreeMap<>();
        for (Path render : RENDERS.keySet()) {
            List<Document> objects = rendered(render);
            Document doc = only(objects, "Deployment", "txinbox");
            Set<String> given = new HashSet<>();
            for (Container container : doc.as(Deployment.class).getSpec().getTemplate().getSpec().getContainers()) {
                for (EnvVar env : container.getEnv()) {
                    check(env.getName(), settings.known(), unknown, doc);
                    given.add(env.getName());
                }
                for (EnvFromSource from : container.getEnvFrom()) {
                    String id = from.getConfigMapRef() != null ? "ConfigMap/" + from.getConfigMapRef().getName()
                            : "Secret/" + from.getSecretRef().getName();
                    for (Document source : objects) {
                        if (source.id().equals(id)) {
                            Stream.of("data", "stringData").forEach(field -> source.tree().path(field).fieldNames()
                                    .forEachRemaining(name -> {
                                        String variable = Objects.toString(from.getPrefix(), "") + name;
                                        check(variable, settings.known(), unknown, source);
                                        given.add(variable);
                                    }));
                        }
                    }
                }
            }
            Set<String> absent = new TreeSet<>(settings.required());
            absent.removeAll(given);
            if (!absent.isEmpty()) {
                missing.put(render, absent);
            }
        }
        assertTrue(unknown.isEmpty(), "variables no setting reads: " + unknown);
        assertTrue(missing.isEmpty(), "settings without a usable default that a rendering does not set: " + missing);
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

    /** Reads the document with its typed model and fails on fields the model does not know; KEDA's by hand. */
    private static void typed(Document doc) throws Exception {
        Class<?> type = TYPED.get(doc.kind());
        if (type != null) {
            List<String> unknown = new ArrayList<>();
            unknownFields(doc.as(type), doc.kind(), unknown);
            assertTrue(unknown.isEmpty(), doc.where() + ": unknown fields " + unknown);
        } else {
            assertTrue(Set.of("ScaledObject", "TriggerAuthentication").contains(doc.kind()),
                    doc.where() + ": no model for kind " + doc.kind());
            assertEquals("keda.sh/v1alpha1", doc.tree().path("apiVersion").asText(), doc.where());
            keda(doc);
        }
    }

    private static void keda(Document doc) {
        JsonNode spec = doc.tree().path("spec");
        if (doc.kind().equals("ScaledObject")) {
            if (spec.has("scaleTargetRef")) {
                assertEquals("txinbox", spec.path("scaleTargetRef").path("name").asText());
            }
            Set<String> names = new TreeSet<>();
            for (JsonNode trigger : spec.path("triggers")) {
                JsonNode metadata = trigger.path("metadata");
                metadata.fields().forEachRemaining(f -> assertTrue(f.getValue().isTextual(),
                        doc.where() + ": " + f.getKey() + ": KEDA metadata values are strings"));
                switch (trigger.path("type").asText()) {
                    case "aws-sqs-queue" -> {
                        assertTrue(metadata.path("queueURL").asText().endsWith("/orders.fifo"), doc.where());
                        assertTrue(metadata.has("queueLength"), doc.where());
                    }
                    // the optional cap on idle pods (docs/SCALING.md): the source queue's groups in flight
                    case "aws-cloudwatch" -> {
                        assertEquals("AWS/SQS", metadata.path("namespace").asText(), doc.where());
                        assertEquals("ApproximateNumberOfGroupsWithInflightMessages",
                                metadata.path("metricName").asText(), doc.where());
                        assertEquals("QueueName", metadata.path("dimensionName").asText(), doc.where());
                        assertEquals("orders.fifo", metadata.path("dimensionValue").asText(), doc.where());
                    }
                    default -> fail(doc.where() + ": a trigger of type " + trigger.path("type").asText());
                }
                if (trigger.has("name")) {
                    assertTrue(names.add(trigger.path("name").asText()), doc.where() + ": two triggers of one name");
                }
            }
            JsonNode modifiers = spec.path("advanced").path("scalingModifiers");
            if (!modifiers.isMissingNode()) {
                String formula = modifiers.path("formula").asText();
                assertTrue(modifiers.path("target").isTextual() && !formula.isBlank(), doc.where() + ": target, formula");
                assertEquals(spec.path("triggers").size(), names.size(), doc.where() + ": scalingModifiers needs every trigger named");
                for (String name : names) {
                    assertTrue(Pattern.compile("\\b" + name + "\\b").matcher(formula).find(),
                            doc.where() + ": the formula leaves out trigger " + name);
                }
            }
        } else {
            assertEquals("aws", spec.path("podIdentity").path("provider").asText());
        }
    }

    /** A reference from one object to another (Kind/name), and the key it reads, if any. */
    record Reference(String target, String key) {
    }

    /** Every reference of the rendered objects, by who makes it ("Deployment/x envFrom", ...). */
    private static Map<String, Reference> references(List<Document> objects) throws IOException {
        Map<String, Reference> refs = new LinkedHashMap<>();
        for (Document doc : objects) {
            if (doc.kind().equals("Deployment")) {
                PodSpec pod = doc.as(Deployment.class).getSpec().getTemplate().getSpec();
                if (pod.getServiceAccountName() != null) {
                    refs.put(doc.id() + " serviceAccountName",
                            new Reference("ServiceAccount/" + pod.getServiceAccountName(), null));
                }
                List<Container> containers = new ArrayList<>(pod.getContainers());
                containers.addAll(pod.getInitContainers());
                for (Container container : containers) {
                    String by = doc.id() + " " + container.getName();
                    for (EnvFromSource from : container.getEnvFrom()) {
                        if (from.getConfigMapRef() != null) {
                            refs.put(by + " envFrom " + from.getConfigMapRef().getName(),
                                    new Reference("ConfigMap/" + from.getConfigMapRef().getName(), null));
                        }
                        if (from.getSecretRef() != null) {
                            refs.put(by + " envFrom " + from.getSecretRef().getName(),
                                    new Reference("Secret/" + from.getSecretRef().getName(), null));
                        }
                    }
                    for (EnvVar env : container.getEnv()) {
                        var from = env.getValueFrom();
                        if (from != null && from.getConfigMapKeyRef() != null) {
                            refs.put(by + " env " + env.getName(), new Reference(
                                    "ConfigMap/" + from.getConfigMapKeyRef().getName(), from.getConfigMapKeyRef().getKey()));
                        }
                        if (from != null && from.getSecretKeyRef() != null) {
                            refs.put(by + " env " + env.getName(), new Reference(
                                    "Secret/" + from.getSecretKeyRef().getName(), from.getSecretKeyRef().getKey()));
                        }
                    }
                }
                for (Volume volume : pod.getVolumes()) {
                    if (volume.getConfigMap() != null) {
                        refs.put(doc.id() + " volume " + volume.getName(),
                                new Reference("ConfigMap/" + volume.getConfigMap().getName(), null));
                    }
                    if (volume.getSecret() != null) {
                        refs.put(doc.id() + " volume " + volume.getName(),
                                new Reference("Secret/" + volume.getSecret().getSecretName(), null));
                    }
                    if (volume.getPersistentVolumeClaim() != null) {
                        refs.put(doc.id() + " volume " + volume.getName(), new Reference(
                                "PersistentVolumeClaim/" + volume.getPersistentVolumeClaim().getClaimName(), null));
                    }
                }
            }
            if (doc.kind().equals("ScaledObject")) {
                JsonNode target = doc.tree().path("spec").path("scaleTargetRef");
                refs.put(doc.id() + " scaleTargetRef", new Reference(target.path("kind").asText("Deployment") + "/"
                        + target.path("name").asText(), null));
                for (JsonNode trigger : doc.tree().path("spec").path("triggers")) {
                    JsonNode auth = trigger.path("authenticationRef");
                    if (!auth.isMissingNode()) {
                        refs.put(doc.id() + " authenticationRef " + auth.path("name").asText(), new Reference(
                                auth.path("kind").asText("TriggerAuthentication") + "/" + auth.path("name").asText(), null));
                    }
                }
            }
        }
        return refs;
    }

    private static List<Probe> probes(Container container) {
        return Stream.of(container.getStartupProbe(), container.getLivenessProbe(), container.getReadinessProbe())
                .filter(Objects::nonNull).toList();
    }

    /** The container's port a probe or Service names (by name or number), or null. */
    private static ContainerPort containerPort(Container container, IntOrString port) {
        return container.getPorts().stream().filter(p -> port.getStrVal() != null ? port.getStrVal().equals(p.getName())
                : port.getIntVal().equals(p.getContainerPort())).findFirst().orElse(null);
    }

    private static boolean selects(Map<String, String> selector, Map<String, String> labels) {
        return selector != null && !selector.isEmpty() && labels != null
                && labels.entrySet().containsAll(selector.entrySet());
    }

    private static Set<String> kinds(List<Document> objects) {
        return objects.stream().map(Document::kind).collect(Collectors.toCollection(TreeSet::new));
    }

    private static void check(String variable, Set<String> known, Set<String> unknown, Document doc) {
        if (!known.contains(variable) && !LIBRARY_VARIABLES.contains(variable)) {
            unknown.add(variable + " (" + doc.where() + ")");
        }
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
