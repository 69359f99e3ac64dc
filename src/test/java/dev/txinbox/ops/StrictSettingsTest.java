package dev.txinbox.ops;

import static dev.txinbox.support.Events.shipped;
import static dev.txinbox.support.Events.unique;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import dev.txinbox.support.Metrics;
import dev.txinbox.support.Profiles;
import dev.txinbox.support.ServiceTest;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** Settings an operator may choose: no admin token at all, and tight health thresholds. */
@QuarkusTest
@TestProfile(Profiles.SwitchedOff.class)
class StrictSettingsTest extends ServiceTest {

    @Test
    void withoutATokenEveryAdminCallIsRefused() {
        for (String token : new String[] { "", "test-admin-token", "anything" }) {
            given().header("Authorization", "Bearer " + token).get("/admin/stats").then().statusCode(401)
                    .body("error", containsString("no TXINBOX_ADMIN_TOKEN is configured"));
        }
        given().post("/admin/dlq/orders/redrive").then().statusCode(401);
    }

    @Test
    void withoutATokenTheConsoleIsClosedToo() {
        double disabled = Metrics.value("txinbox_admin_auth_failures_total", "reason", "disabled");
        for (String path : new String[] { "/console", "/console/sign-in", "/console/entries", "/console/audit" }) {
            given().redirects().follow(false).get(path).then().statusCode(401)
                    .contentType(containsString("text/html")).body(containsString("The console is closed"))
                    .header("X-Frame-Options", "DENY");
        }
        given().redirects().follow(false).formParam("token", "test-admin-token").post("/console/sign-in").then()
                .statusCode(401).header("Set-Cookie", nullValue());
        assertEquals(disabled + 1, Metrics.value("txinbox_admin_auth_failures_total", "reason", "disabled"));
    }

    @Test
    void inboxLagTurnsDownPastItsThresholdAndLivenessStaysUp() {
        String order = unique("ord"), early = unique("evt");
        queues.send("orders.fifo", order, shipped(early, order, 9L));
        eventually().until(() -> "PARKED".equals(db.inboxStatus("orders", early)));
        eventually().until(() -> given().get("/q/health/ready").statusCode() == 503);
        given().get("/q/health/ready").then()
                .body("checks.find { it.name == 'inbox-lag' }.status", equalTo("DOWN"))
                .body("checks.find { it.name == 'inbox-lag' }.data.'orders.down'", containsString("parked event waits"));
        given().get("/q/health/live").then().statusCode(200);
    }
}
