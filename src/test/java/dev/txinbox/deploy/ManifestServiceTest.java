package dev.txinbox.deploy;

import static dev.txinbox.deploy.Manifests.RENDERS;
import static dev.txinbox.deploy.Manifests.of;
import static dev.txinbox.deploy.Manifests.rendered;
import static dev.txinbox.support.Events.created;
import static dev.txinbox.support.Events.unique;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.txinbox.deploy.Manifests.Document;
import dev.txinbox.ops.retention.RetentionJob;
import dev.txinbox.support.Metrics;
import dev.txinbox.support.ServiceTest;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.quarkus.test.junit.QuarkusTest;

/**
 * What of the rendered manifests only the running service can answer: the paths the probes and the
 * ServiceMonitor ask for answer, and the alert rules use only metrics the service exposes. The rest of the
 * manifests is checked without the service, in {@link ManifestTest}.
 */
@QuarkusTest
class ManifestServiceTest extends ServiceTest {

    @Inject
    RetentionJob retention;

    @Test
    void thePathsTheProbesAndTheScrapeAskForAnswer() throws Exception {
        Set<String> paths = new TreeSet<>(Set.of("/q/metrics"));
        for (Path render : RENDERS.keySet()) {
            for (Document doc : of(rendered(render), "Deployment")) {
                for (Container container : doc.as(Deployment.class).getSpec().getTemplate().getSpec().getContainers()) {
                    for (Probe probe : new Probe[] { container.getStartupProbe(), container.getLivenessProbe(),
                            container.getReadinessProbe() }) {
                        if (probe != null && probe.getHttpGet() != null) {
                            paths.add(probe.getHttpGet().getPath());
                        }
                    }
                }
            }
        }
        assertTrue(paths.containsAll(ManifestTest.HEALTH_PATHS), paths.toString());
        for (String path : paths) {
            given().get(path).then().statusCode(200);
        }
    }

    @Test
    void alertRulesUseOnlyMetricsTheServiceExposes() throws Exception {
        retention.run(); // its counters appear after a first run, the outcome counter after a message
        String order = unique("ord"), event = unique("evt");
        queues.send("orders.fifo", order, created(event, order, 1L, 100));
        // The outcome is counted after the message is settled with SQS, a moment after the commit.
        eventually().until(() -> Metrics.outcomes("orders", "processed") >= 1);
        Set<String> exposed = new HashSet<>();
        Matcher scraped = Pattern.compile("^(txinbox_[a-z_]+)", Pattern.MULTILINE).matcher(Metrics.scrape());
        while (scraped.find()) {
            exposed.add(scraped.group(1));
        }
        Set<String> missing = new TreeSet<>();
        int rules = 0;
        for (Path render : RENDERS.keySet()) {
            for (Document doc : of(rendered(render), "PrometheusRule")) {
                rules++;
                for (var group : doc.as(PrometheusRule.class).getSpec().getGroups()) {
                    for (var rule : group.getRules()) {
                        Matcher used = Pattern.compile("(txinbox_[a-z_]+)").matcher(rule.getExpr().getStrVal());
                        while (used.find()) {
                            if (!exposed.contains(used.group(1))) {
                                missing.add(used.group(1) + " (" + doc.origin() + ", " + rule.getAlert() + ")");
                            }
                        }
                    }
                }
            }
        }
        assertTrue(rules > 0, "no PrometheusRule rendered");
        assertTrue(missing.isEmpty(), "alerts on metrics the service does not expose: " + missing);
    }

}
