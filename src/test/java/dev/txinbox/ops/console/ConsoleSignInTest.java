package dev.txinbox.ops.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;

import dev.txinbox.support.LogCapture;
import dev.txinbox.support.Metrics;
import io.quarkus.test.junit.QuarkusMock;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Signing in and out of the console in a real Chromium: a refused token, the session's cookie and its end
 * (signed out, or expired), checked on the page, in the audit and in the sessions table.
 */
@QuarkusTest
class ConsoleSignInTest extends ConsoleSupport {

    @Test
    void aRefusedSignInIsLoggedWithoutTheTokenCountedAndSlowedDown() throws Exception {
        try (LogCapture logged = LogCapture.of(ConsoleSignIn.class)) {
            double wrong = Metrics.value("txinbox_admin_auth_failures_total", "reason", "wrong_token");
            browser.open(url("/console/sign-in"));
            browser.screenshot("sign-in-page");
            long started = System.nanoTime();
            browser.element(By.id("token")).sendKeys("n0t-the-t0ken");
            browser.follow(browser.element(By.id("sign-in")));
            assertEquals("That is not the admin token.", browser.element(By.id("error")).getText());
            assertTrue(Duration.ofNanos(System.nanoTime() - started).toMillis() >= 300, "answered late");
            assertTrue(driver.getCurrentUrl().endsWith("/console/sign-in"));
            browser.screenshot("sign-in-refused");
            assertEquals(wrong + 1, Metrics.value("txinbox_admin_auth_failures_total", "reason", "wrong_token"));

            // Refused, then at once again, even with the right token: not even looked at.
            // (This client may share the browser's address, and so its wait: it tries until it is heard.)
            long[] sent = new long[1];
            int[] status = new int[1];
            eventually().until(() -> {
                sent[0] = System.nanoTime();
                status[0] = post("/console/sign-in", Map.of("token", "another-guess"), null).statusCode();
                return status[0] != 429;
            });
            assertEquals(401, status[0]);
            assertTrue(Duration.ofNanos(System.nanoTime() - sent[0]).toMillis() >= 300, "answered late");
            HttpResponse<String> tooSoon = post("/console/sign-in", Map.of("token", TOKEN), null);
            assertEquals(429, tooSoon.statusCode());
            assertTrue(tooSoon.headers().firstValue("Set-Cookie").isEmpty());

            String messages = logged.text();
            assertTrue(logged.logged("console sign-in refused"), messages);
            assertFalse(messages.contains("n0t-the-t0ken") || messages.contains("another-guess") || messages.contains(TOKEN),
                    messages);
        }
        // After the wait, the right token opens a session.
        eventually().until(() -> post("/console/sign-in", Map.of("token", TOKEN), null).statusCode() == 303);
    }

    @Test
    void signedOutEveryPageLeadsToSignInAndTheOldCookieIsDeadForGood() throws Exception {
        HttpResponse<String> signedIn = post("/console/sign-in", Map.of("token", TOKEN), null);
        assertEquals(303, signedIn.statusCode());
        String setCookie = signedIn.headers().firstValue("Set-Cookie").orElseThrow();
        assertTrue(setCookie.startsWith(ConsoleSessions.COOKIE + "="), setCookie);
        for (String attribute : new String[] { "Path=/console", "Max-Age=28800", "HttpOnly", "SameSite=Strict" }) {
            assertTrue(setCookie.contains("; " + attribute), setCookie + " lacks " + attribute);
        }
        assertFalse(setCookie.contains("Secure"), "plain HTTP here: " + setCookie);
        String cookie = setCookie.substring(0, setCookie.indexOf(';'));
        HttpResponse<String> page = get("/console", cookie);
        assertEquals(200, page.statusCode());
        assertEquals(ConsoleFilter.CONTENT_SECURITY_POLICY, page.headers().firstValue("Content-Security-Policy").orElse(null));
        assertEquals("DENY", page.headers().firstValue("X-Frame-Options").orElse(null));
        assertEquals("no-referrer", page.headers().firstValue("Referrer-Policy").orElse(null));
        assertEquals("no-store", page.headers().firstValue("Cache-Control").orElse(null));
        assertFalse(page.body().contains(TOKEN));

        signIn();
        String label = browser.element(By.id("session")).getText().replace("session ", "");
        String browserCookie = sessionCookie();
        browser.follow(browser.element(By.id("sign-out")));
        browser.waiting().until(d -> d.getCurrentUrl().endsWith("/console/sign-in"));
        browser.screenshot("sign-in");
        assertNotNull(db.row("select ended_at from console_sessions where label = ?", label).get("ended_at"));
        assertEquals(1, db.count("select count(*) from admin_audit where action = 'sign-out' and actor = ?",
                "console session " + label));

        List<String> pages = List.of("/console", "/console/entries", "/console/entries?status=DEAD",
                "/console/entry?consumer=orders&id=x", "/console/failures", "/console/streams", "/console/audit",
                "/console/replay?consumer=orders&id=x", "/console/redrive?consumer=orders",
                "/console/release?consumer=orders&aggregateId=x", "/console/retry-group?consumer=orders&group=x");
        for (String path : pages) {
            browser.open(url(path));
            assertTrue(driver.getCurrentUrl().endsWith("/console/sign-in"), path + " -> " + driver.getCurrentUrl());
            assertTrue(browser.element(By.id("token")).isDisplayed());
            HttpResponse<String> answer = get(path, browserCookie);
            assertEquals(303, answer.statusCode(), path + " with the signed-out cookie");
            assertTrue(answer.headers().firstValue("Location").orElseThrow().endsWith("/console/sign-in"));
        }
        for (String path : new String[] { "/console/replay", "/console/redrive", "/console/release",
                "/console/retry-group", "/console/sign-out" }) {
            assertEquals(303, post(path, Map.of("consumer", "orders"), browserCookie).statusCode(), path);
        }
        // The other session, never signed out, still works; a forged one does not.
        assertEquals(200, get("/console/audit", cookie).statusCode());
        String[] parts = cookie.split("\\.");
        assertEquals(303, get("/console", parts[0] + "." + (Long.parseLong(parts[1]) + 3600) + "." + parts[2]).statusCode());
        assertEquals(303, get("/console", ConsoleSessions.COOKIE + "=nonsense").statusCode());
    }

    @Test
    void aSessionEndsWhenItExpires() throws Exception {
        signIn();
        String cookie = sessionCookie();
        assertEquals(200, get("/console", cookie).statusCode());
        MovableClock clock = new MovableClock(Instant.now().plus(Duration.ofHours(8)).plusSeconds(60));
        QuarkusMock.installMockForType(clock, ConsoleClock.class);
        assertEquals(303, get("/console", cookie).statusCode());
        browser.open(url("/console/entries"));
        assertTrue(driver.getCurrentUrl().endsWith("/console/sign-in"));
    }
}
