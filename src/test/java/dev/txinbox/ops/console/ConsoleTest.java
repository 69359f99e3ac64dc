package dev.txinbox.ops.console;

import static dev.txinbox.support.Events.cancelled;
import static dev.txinbox.support.Events.created;
import static dev.txinbox.support.Events.ledger;
import static dev.txinbox.support.Events.paid;
import static dev.txinbox.support.Events.shipped;
import static dev.txinbox.support.Events.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.URL;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;

import dev.txinbox.support.Browser;
import dev.txinbox.support.LedgerConsumer;
import dev.txinbox.support.LogCapture;
import dev.txinbox.support.Metrics;
import dev.txinbox.support.ServiceTest;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusMock;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The operator console in a real Chromium: what an operator sees and does, checked on the page and in the
 * database and queues behind it. Screenshots of every page go to target/console-screenshots/.
 */
@QuarkusTest
class ConsoleTest extends ServiceTest {

    private static final String TOKEN = "test-admin-token";
    private static Browser browser;

    @TestHTTPResource("/")
    URL root;

    @Inject
    OutcomeHistory history;

    @Inject
    dev.txinbox.outbox.Outbox outbox;

    private ChromeDriver driver;
    private final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    @BeforeAll
    static void startBrowser() {
        browser = Browser.start();
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.close();
        }
    }

    @BeforeEach
    void signedOut() {
        driver = browser.driver();
        browser.open(url("/console/sign-in"));
        driver.manage().deleteAllCookies();
    }

    // ------------------------------------------------------------------------------------------ scenarios

    @Test
    void aPoisonMessageShowsAsDeadWithItsReasonAndARedriveBringsItBackDeadWithOneMoreAttempt() {
        String group = unique("grp"), poison = unique("poison");
        // A handler that always throws: three attempts (the ledger consumer's limit), then the DLQ.
        queues.send("ledger.fifo", group, ledger(poison, group, "{\"failTimes\":1000}"));
        eventually().until(() -> "DEAD".equals(db.inboxStatus(LedgerConsumer.CONSUMER, poison)));
        eventually().until(() -> queues.depth("ledger-dlq.fifo") >= 1);

        signIn();
        assertEquals("Overview", browser.element(By.tagName("h1")).getText());
        browser.screenshot("overview-after-sign-in");

        browser.open(url("/console/entries?consumer=ledger&status=DEAD"));
        WebElement row = entryRow(poison);
        assertEquals("DEAD", row.getAttribute("data-status"));
        assertTrue(row.getText().contains("gave up after 3 attempts"), row.getText());
        assertTrue(row.getText().contains("scripted failure 3 of event " + poison), row.getText());
        browser.screenshot("entries");

        browser.follow(row.findElement(By.linkText(poison)));
        assertEquals("DEAD", browser.element(By.id("status")).getText());
        assertTrue(browser.element(By.id("error-text")).getText().startsWith("gave up after 3 attempts: "));
        assertEquals(3, attemptRows().size());
        Map<String, String> deadLetter = keyValues("dead-letter");
        assertEquals("gave up after 3 attempts", deadLetter.get("txinbox-reason"));
        assertEquals("3", deadLetter.get("txinbox-attempts"));
        assertEquals("ledger.fifo", keyValues("source").get("queue"));
        assertEquals(group, keyValues("source").get("message group"));
        assertTrue(browser.element(By.id("body")).getText().contains("\"failTimes\" : 1000"), "pretty-printed body");
        browser.screenshot("entry-dead");
        String firstCopy = (String) db.row("select source_message_id from inbox_messages where consumer_name = 'ledger'"
                + " and message_id = ?", poison).get("source_message_id");

        // Redrive the whole DLQ, the cause unfixed.
        browser.open(url("/console"));
        browser.follow(browser.element(By.cssSelector("#consumer-ledger a.action")));
        assertTrue(browser.element(By.tagName("h1")).getText().contains("ledger-dlq.fifo"));
        browser.screenshot("confirm-redrive");
        browser.element(By.id("scope-all")).click();
        browser.follow(browser.element(By.id("confirm-button")));
        String result = browser.element(By.id("result")).getText();
        assertTrue(result.matches("(?s)Moved \\d+ messages? from ledger-dlq\\.fifo to ledger\\.fifo.*"), result);
        browser.screenshot("result-redrive");

        // Back through the source queue: a fourth attempt, failed, and dead again.
        eventually().until(() -> db.count("select count(*) from inbox_attempts where consumer_name = 'ledger'"
                + " and message_id = ?", poison) == 4 && "DEAD".equals(db.inboxStatus(LedgerConsumer.CONSUMER, poison)));
        Map<String, Object> fourth = db.row("select source_message_id from inbox_attempts where consumer_name = 'ledger'"
                + " and message_id = ? and attempt = 4", poison);
        assertNotEquals(firstCopy, fourth.get("source_message_id"), "the redriven copy is a new SQS message");
        assertEquals(4, ((Number) db.row("select attempt_count from inbox_messages where consumer_name = 'ledger'"
                + " and message_id = ?", poison).get("attempt_count")).intValue());
        browser.open(url("/console/entry?consumer=ledger&id=" + poison));
        assertEquals("DEAD", browser.element(By.id("status")).getText());
        List<WebElement> attempts = attemptRows();
        assertEquals(4, attempts.size());
        assertTrue(attempts.get(3).getText().startsWith("4 "), attempts.get(3).getText());
        assertTrue(browser.element(By.id("error-text")).getText().startsWith("gave up after 4 attempts: "));
        assertEquals(1, db.count("select count(*) from admin_audit where action = 'redrive' and consumer = 'ledger'"
                + " and actor = ?", actor()));
    }

    @Test
    void aParkedGapShowsInStreamsAndReleasingItBringsTheOrderToItsFinalState() {
        String order = unique("ord"), c = unique("evt"), p = unique("evt"), s = unique("evt");
        queues.send("orders.fifo", order, created(c, order, 1L, 4999));
        // Sequence 2 never comes: the payment (3) and the shipment (4) wait for it.
        queues.send("orders.fifo", order, paid(p, order, 3L, 4999));
        queues.send("orders.fifo", order, shipped(s, order, 4L));
        eventually().until(() -> "PARKED".equals(db.inboxStatus("orders", s)) && "PARKED".equals(db.inboxStatus("orders", p)));
        assertEquals("CREATED", db.row("select status from orders where id = ?", order).get("status"));

        signIn();
        browser.open(url("/console/streams?consumer=orders"));
        WebElement stream = browser.element(By.cssSelector("#streams tr[data-aggregate='" + order + "']"));
        assertEquals("2", stream.findElement(By.className("missing")).getText());
        assertEquals("3, 4", stream.findElement(By.className("parked")).getText());
        assertTrue(stream.findElement(By.className("waiting")).getText().matches("\\d+ (s|min \\d+ s)"),
                stream.findElement(By.className("waiting")).getText());
        browser.screenshot("streams");

        browser.follow(stream.findElement(By.linkText("Release gap…")));
        assertEquals("2", browser.element(By.id("missing")).getText());
        browser.screenshot("confirm-release");
        browser.follow(browser.element(By.id("confirm-button")));
        String result = browser.element(By.id("result")).getText();
        assertTrue(result.contains("Skipped sequence 2."), result);
        assertTrue(result.contains("The stream was at 1 and is now at 4."), result);
        browser.screenshot("result-release");

        Map<String, Object> row = db.row("select status, paid_amount, carrier from orders where id = ?", order);
        assertEquals("SHIPPED", row.get("status"));
        assertEquals(4999L, row.get("paid_amount"));
        assertEquals("DHL", row.get("carrier"));
        assertEquals("PROCESSED", db.inboxStatus("orders", p));
        assertEquals("PROCESSED", db.inboxStatus("orders", s));
        assertEquals(4L, db.count("select last_sequence from stream_state where consumer_name = 'orders'"
                + " and aggregate_id = ?", order));
        assertEquals(1, db.count("select count(*) from admin_audit where action = 'release' and target = ?"
                + " and outcome = 'released' and actor = ?", order, actor()));
        browser.open(url("/console/streams?consumer=orders"));
        assertTrue(driver.findElements(By.cssSelector("#streams tr[data-aggregate='" + order + "']")).isEmpty());
    }

    @Test
    void anOutboxEventTheBrokerRefusesShowsAsAWaitingStreamAndSkippingItLetsTheNextOneGo() {
        String aggregate = unique("agg");
        java.util.UUID[] ids = new java.util.UUID[2];
        io.quarkus.narayana.jta.QuarkusTransaction.requiringNew().run(() -> {
            ids[0] = outbox.record("order", aggregate, "TooLarge", "{\"blob\": \"" + "x".repeat(300_000) + "\"}");
            ids[1] = outbox.record("order", aggregate, "Next", "{}");
        });
        eventually().until(() -> db.count("select attempts from outbox_events where id = ?", ids[0]) == 1);

        signIn();
        browser.open(url("/console/outbox"));
        WebElement stream = browser.element(By.cssSelector("#outbox-streams tr[data-aggregate='" + aggregate + "']"));
        assertEquals("1", stream.findElement(By.className("attempts")).getText());
        assertTrue(stream.findElement(By.className("reason")).getText().contains("exceeds the limit"),
                stream.findElement(By.className("reason")).getText());
        browser.screenshot("outbox");

        browser.follow(stream.findElement(By.linkText("Skip…")));
        assertTrue(browser.element(By.id("reason")).getText().contains("exceeds the limit"));
        browser.screenshot("confirm-outbox-skip");
        browser.follow(browser.element(By.id("confirm-button")));
        String result = browser.element(By.id("result")).getText();
        assertTrue(result.contains("will never be sent"), result);
        eventually().until(() -> db.count("select count(*) from outbox_events where id = ? and published_at is not null",
                ids[1]) == 1);
        assertEquals(1, db.count("select count(*) from outbox_events where id = ? and skipped_at is not null", ids[0]));
        assertEquals(1, db.count("select count(*) from admin_audit where action = 'outbox-skip' and target = ?"
                + " and outcome = 'skipped' and actor = ?", aggregate, actor()));
        browser.open(url("/console/outbox"));
        assertTrue(driver.findElements(By.cssSelector("#outbox-streams tr[data-aggregate='" + aggregate + "']")).isEmpty());
    }

    @Test
    void aScriptInAMessageIsShownAsTextAndNeverRuns() {
        String order = unique("ord"), id = unique("xss");
        String script = "<script>alert(1)</script>";
        String body = "{\"eventId\":\"" + id + "\",\"type\":\"" + script + "\",\"aggregateId\":\"" + order
                + "\",\"payload\":{\"note\":\"" + script + "<img src=x onerror=alert(2)>\"}}";
        queues.send("orders.fifo", order, body);
        eventually().until(() -> "DEAD".equals(db.inboxStatus("orders", id)));

        signIn();
        browser.open(url("/console/entries?consumer=orders&aggregateId=" + order));
        assertThrows(NoAlertPresentException.class, () -> driver.switchTo().alert());
        assertTrue(entryRow(id).getText().contains("unknown event type '" + script + "'"), entryRow(id).getText());

        browser.open(url("/console/entry?consumer=orders&id=" + id));
        assertThrows(NoAlertPresentException.class, () -> driver.switchTo().alert());
        String shown = browser.element(By.id("body")).getText();
        assertTrue(shown.contains("\"type\" : \"" + script + "\""), shown);
        assertTrue(shown.contains(script + "<img src=x onerror=alert(2)>"), shown);
        assertTrue(browser.element(By.id("body")).isDisplayed());
        assertTrue(browser.element(By.id("error-text")).getText().contains(script));
        // Text, not markup: the page has no script and no image element at all.
        assertTrue(driver.findElements(By.tagName("script")).isEmpty());
        assertTrue(driver.findElements(By.tagName("img")).isEmpty());
        browser.screenshot("entry-with-script-in-body");

        browser.open(url("/console/failures?consumer=orders"));
        assertThrows(NoAlertPresentException.class, () -> driver.switchTo().alert());
        // The cause, digits stripped for grouping, still shows the tag as text.
        assertTrue(browser.element(By.id("groups")).getText().contains("unknown event type '<script>alert(#)</script>'"),
                browser.element(By.id("groups")).getText());
    }

    @Test
    void aPostWithoutTheSessionsCsrfTokenIsRefusedAndChangesNothing() throws Exception {
        String order = unique("ord"), dead = unique("evt");
        queues.send("orders.fifo", order, "{\"eventId\":\"" + dead + "\",\"type\":\"ORDER_PAID\",\"aggregateId\":\""
                + order + "\",\"payload\":{\"amount\":-5,\"currency\":\"EUR\"}}");
        eventually().until(() -> "DEAD".equals(db.inboxStatus("orders", dead)));
        String parkedOrder = unique("ord"), parked = unique("evt");
        queues.send("orders.fifo", parkedOrder, shipped(parked, parkedOrder, 5L));
        eventually().until(() -> "PARKED".equals(db.inboxStatus("orders", parked)));

        signIn();
        String cookie = sessionCookie();
        browser.open(url("/console/replay?consumer=orders&id=" + dead));
        String csrf = browser.element(By.name("csrf")).getAttribute("value");
        Map<String, Object> before = db.row("select status, attempt_count, source_message_id, error_text"
                + " from inbox_messages where consumer_name = 'orders' and message_id = ?", dead);
        long audited = db.count("select count(*) from admin_audit");
        int dlq = queues.depth("orders-dlq.fifo");

        Map<String, Map<String, String>> forms = Map.of(
                "/console/replay", Map.of("consumer", "orders", "id", dead),
                "/console/redrive", Map.of("consumer", "orders", "scope", "all"),
                "/console/release", Map.of("consumer", "orders", "aggregateId", parkedOrder),
                "/console/retry-group", Map.of("consumer", "orders", "group", "0123456789abcdef0123456789abcdef"),
                "/console/sign-out", Map.of());
        for (var form : forms.entrySet()) {
            for (String token : new String[] { null, "", "forged-" + csrf, csrf.substring(1) }) {
                Map<String, String> fields = new HashMap<>(form.getValue());
                if (token != null) {
                    fields.put("csrf", token);
                }
                HttpResponse<String> response = post(form.getKey(), fields, cookie);
                assertEquals(403, response.statusCode(), form.getKey() + " with csrf " + token);
                assertTrue(response.body().contains("Refused: not a form of this session"), response.body());
                assertTrue(response.body().contains("Nothing was changed."), response.body());
            }
        }
        assertEquals(before, db.row("select status, attempt_count, source_message_id, error_text from inbox_messages"
                + " where consumer_name = 'orders' and message_id = ?", dead));
        assertEquals("PARKED", db.inboxStatus("orders", parked));
        assertEquals(audited, db.count("select count(*) from admin_audit"));
        assertEquals(dlq, queues.depth("orders-dlq.fifo"));
        // Still signed in: the refused sign-out did not sign out.
        assertEquals(200, get("/console", cookie).statusCode());

        // The same form from the page, its token altered in the browser, is refused the same way.
        driver.executeScript("document.querySelector('#confirm input[name=csrf]').value = 'altered'");
        browser.follow(browser.element(By.id("confirm-button")));
        assertTrue(browser.element(By.id("problem-title")).getText().startsWith("Refused"));
        browser.screenshot("refused-csrf");
        assertEquals(before, db.row("select status, attempt_count, source_message_id, error_text from inbox_messages"
                + " where consumer_name = 'orders' and message_id = ?", dead));

        // With the token, the same POST does what it says (so the refusals above were the token's doing).
        HttpResponse<String> done = post("/console/replay", Map.of("consumer", "orders", "id", dead, "csrf", csrf), cookie);
        assertEquals(200, done.statusCode(), done.body());
        assertEquals(audited + 1, db.count("select count(*) from admin_audit"));
    }

    @Test
    void whatTheConsoleCannotAnswerIsAPageWithItsStatusAndTheApiStillAnswersJson() throws Exception {
        HttpResponse<String> signedIn = post("/console/sign-in", Map.of("token", TOKEN), null);
        String setCookie = signedIn.headers().firstValue("Set-Cookie").orElseThrow();
        String cookie = setCookie.substring(0, setCookie.indexOf(';'));
        for (String[] call : new String[][] { { "PUT", "/console/entries", "405" }, { "DELETE", "/console", "405" },
                { "GET", "/console/entry?consumer=orders&id=" + "x".repeat(600), "400" },
                { "GET", "/console/entry?consumer=nobody&id=x", "404" } }) {
            HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(url(call[1])))
                    .method(call[0], HttpRequest.BodyPublishers.noBody()).header("Cookie", cookie).build(),
                    HttpResponse.BodyHandlers.ofString());
            String what = call[0] + " " + call[1];
            assertEquals(Integer.parseInt(call[2]), answer.statusCode(), what);
            assertTrue(answer.headers().firstValue("Content-Type").orElse("").startsWith("text/html"), what);
            assertTrue(answer.body().contains("id=\"problem-title\""), what + ": " + answer.body());
            assertEquals(ConsoleFilter.CONTENT_SECURITY_POLICY,
                    answer.headers().firstValue("Content-Security-Policy").orElse(null), what);
        }
        // The admin API beside it keeps its JSON for the same refusal.
        HttpResponse<String> api = http.send(HttpRequest.newBuilder(URI.create(url("/admin/inbox")))
                .method("PUT", HttpRequest.BodyPublishers.noBody()).header("Authorization", "Bearer " + TOKEN).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(405, api.statusCode());
        assertTrue(api.headers().firstValue("Content-Type").orElse("").startsWith("application/json"), api.body());
        assertTrue(api.body().contains("\"error\""), api.body());
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
    void theOverviewPlotsAPointForEveryMinuteOfTraffic() {
        // Seven minutes that ended a minute ago: the first sample clears what was sampled after them, and
        // the real clock carries on from there once the test is over.
        MovableClock clock = new MovableClock(Instant.now().truncatedTo(ChronoUnit.MINUTES).minus(Duration.ofMinutes(8)));
        QuarkusMock.installMockForType(clock, ConsoleClock.class);
        Instant start = clock.now;
        clock.now = start.minus(Duration.ofMinutes(1));
        history.sample(); // whatever came before belongs to the minute before

        // per minute: 2 processed, 4, 1 and a duplicate, nothing, 3, a rejection and a parked event, 2 and a rejection
        String a = unique("ord"), b = unique("ord"), late = unique("ord");
        String aPaid = unique("evt");
        List<Runnable> minutes = List.of(
                () -> {
                    queues.send("orders.fifo", a, created(unique("evt"), a, 1L, 1200));
                    queues.send("orders.fifo", b, created(unique("evt"), b, 1L, 800));
                },
                () -> {
                    queues.send("orders.fifo", a, paid(aPaid, a, 2L, 1200));
                    queues.send("orders.fifo", b, paid(unique("evt"), b, 2L, 800));
                    queues.send("orders.fifo", a, shipped(unique("evt"), a, 3L));
                    queues.send("orders.fifo", late, created(unique("evt"), late, 1L, 100));
                },
                () -> {
                    queues.send("orders.fifo", b, shipped(unique("evt"), b, 3L));
                    queues.send("orders.fifo", a, paid(aPaid, a, 2L, 1200)); // a re-send: duplicate
                },
                () -> {
                },
                () -> {
                    for (int i = 0; i < 3; i++) {
                        String o = unique("ord");
                        queues.send("orders.fifo", o, created(unique("evt"), o, 1L, 100));
                    }
                },
                () -> {
                    queues.send("orders.fifo", late, shipped(unique("evt"), late, 2L)); // unpaid: rejected
                    queues.send("orders.fifo", late, paid(unique("evt"), late, 4L, 100)); // 3 missing: parked
                },
                () -> {
                    queues.send("orders.fifo", a, cancelled(unique("evt"), a, 4L)); // shipped: rejected
                    for (int i = 0; i < 2; i++) {
                        String o = unique("ord");
                        queues.send("orders.fifo", o, created(unique("evt"), o, 1L, 100));
                    }
                });
        long[] processed = { 2, 4, 1, 0, 3, 0, 2 };
        long[] duplicates = { 0, 0, 1, 0, 0, 0, 0 };
        long[] rejected = { 0, 0, 0, 0, 0, 1, 1 };
        long[] parked = { 0, 0, 0, 0, 0, 1, 0 };
        for (int m = 0; m < minutes.size(); m++) {
            clock.now = start.plus(Duration.ofMinutes(m)).plusSeconds(7);
            double processedBefore = Metrics.outcomes("orders", "processed");
            double duplicateBefore = Metrics.outcomes("orders", "duplicate");
            double rejectedBefore = Metrics.outcomes("orders", "rejected");
            double parkedBefore = Metrics.outcomes("orders", "parked");
            minutes.get(m).run();
            long p = processed[m], d = duplicates[m], r = rejected[m], k = parked[m];
            eventually().until(() -> Metrics.outcomes("orders", "processed") >= processedBefore + p
                    && Metrics.outcomes("orders", "duplicate") >= duplicateBefore + d
                    && Metrics.outcomes("orders", "rejected") >= rejectedBefore + r
                    && Metrics.outcomes("orders", "parked") >= parkedBefore + k);
            history.sample();
        }

        signIn();
        browser.open(url("/console"));
        Map<String, String> points = points("outcomes-orders", "processed");
        for (int m = 0; m < processed.length; m++) {
            String minute = start.plus(Duration.ofMinutes(m)).toString();
            assertEquals(Long.toString(processed[m]), points.get(minute), "processed in minute " + m + " of " + points);
        }
        for (int m = 0; m < processed.length; m++) {
            String minute = start.plus(Duration.ofMinutes(m)).toString();
            assertEquals(Long.toString(duplicates[m]), points("outcomes-orders", "duplicate").get(minute), "duplicates " + m);
            assertEquals(Long.toString(rejected[m]), points("outcomes-orders", "rejected").get(minute), "rejected " + m);
            assertEquals(Long.toString(parked[m]), points("outcomes-orders", "parked").get(minute), "parked " + m);
        }
        Map<String, String> lag = points("lag-orders", "lag");
        for (int m = 0; m < processed.length; m++) {
            assertTrue(lag.containsKey(start.plus(Duration.ofMinutes(m)).toString()), "lag point for minute " + m);
        }
        // Nothing was sampled after the last minute of traffic: no point there.
        assertFalse(points.containsKey(start.plus(Duration.ofMinutes(processed.length)).toString()));
        browser.screenshot("overview");

        // The numbers live in the service: a reload shows the same points.
        driver.navigate().refresh();
        assertEquals(points, points("outcomes-orders", "processed"));
        assertTrue(browser.element(By.id("inbox-lag-orders")).getText().contains("lagSeconds"));

        // Where a message's time went in the last sampled minute: every stage listed, and in each one a worker
        // touched, the minute's three messages (a rejected cancellation and two orders created).
        List<String> stages = driver.findElements(By.cssSelector("#stages-orders tr[data-stage]")).stream()
                .map(row -> row.getAttribute("data-stage")).toList();
        assertEquals(List.of("receive buffer", "waiting for worker", "transaction", "commit", "settlement"), stages);
        for (String stage : List.of("waiting for worker", "transaction", "commit")) {
            WebElement row = browser.element(By.cssSelector("#stages-orders tr[data-stage='" + stage + "']"));
            assertEquals("3", row.findElement(By.cssSelector("td")).getText(), stage + ": " + row.getText());
        }
    }

    @Test
    void retryingAFailureGroupRetriesEveryEntryInIt() {
        List<String> events = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String group = unique("grp"), event = unique("evt");
            events.add(event);
            // Fails three times (the ledger consumer's limit), so dead; a fourth attempt succeeds.
            queues.send("ledger.fifo", group, ledger(event, group, "{\"failTimes\":3}"));
        }
        eventually().until(() -> events.stream().allMatch(e -> "DEAD".equals(db.inboxStatus(LedgerConsumer.CONSUMER, e))));

        signIn();
        browser.open(url("/console/failures?consumer=ledger"));
        WebElement group = driver.findElements(By.cssSelector("#groups tr[data-consumer='ledger']")).stream()
                .filter(r -> r.getText().contains(events.get(2))).findFirst().orElseThrow();
        assertEquals("gave up after # attempts: java.lang.IllegalStateException: scripted failure # of event <id>",
                group.findElement(By.className("cause")).getText());
        assertTrue(Long.parseLong(group.getAttribute("data-total")) >= 3);
        browser.screenshot("failures");

        browser.follow(group.findElement(By.linkText("Retry all…")));
        List<String> members = driver.findElements(By.cssSelector("#members a")).stream().map(WebElement::getText).toList();
        assertTrue(members.containsAll(events), members.toString());
        assertEquals(browser.element(By.id("group-total")).getText(), Integer.toString(members.size()));
        browser.screenshot("confirm-retry-group");
        browser.follow(browser.element(By.id("confirm-button")));
        String result = browser.element(By.id("result")).getText();
        assertTrue(result.startsWith("Retried " + members.size() + " entr"), result);
        browser.screenshot("result-retry-group");

        for (String event : events) {
            assertEquals("PROCESSED", db.inboxStatus(LedgerConsumer.CONSUMER, event));
            assertEquals(1, db.count("select count(*) from ledger_entries where event_id = ?", event));
        }
        for (String member : members) {
            assertEquals(1, db.count("select count(*) from admin_audit where action = 'replay' and consumer = 'ledger'"
                    + " and target = ? and actor = ?", member, actor()), member);
        }
        assertEquals(1, db.count("select count(*) from admin_audit where action = 'retry-group' and actor = ?"
                + " and outcome = ?", actor(), "retried " + members.size()));
    }

    @Test
    void theAuditPageListsEveryActionWithTheSessionThatDidIt() {
        String order = unique("ord"), event = unique("evt");
        queues.send("orders.fifo", order, created(event, order, 1L, 100));
        eventually().until(() -> "PROCESSED".equals(db.inboxStatus("orders", event)));

        signIn();
        String actor = actor();
        browser.open(url("/console/entry?consumer=orders&id=" + event));
        browser.follow(browser.element(By.id("replay")));
        browser.screenshot("confirm-replay");
        browser.follow(browser.element(By.id("confirm-button")));
        assertTrue(browser.element(By.id("result")).getText().contains("Outcome: duplicate"));
        browser.screenshot("result-replay");
        assertEquals(1, db.count("select count(*) from orders where id = ?", order));

        browser.open(url("/console/audit"));
        List<WebElement> rows = driver.findElements(By.cssSelector("#audit tbody tr"));
        WebElement replay = rows.get(0);
        assertEquals("replay", replay.getAttribute("data-action"));
        assertEquals(actor, replay.findElement(By.className("actor")).getText());
        assertTrue(replay.getText().contains(event) && replay.getText().contains("duplicate"), replay.getText());
        WebElement signIn = rows.get(1);
        assertEquals("sign-in", signIn.getAttribute("data-action"));
        assertEquals(actor, signIn.findElement(By.className("actor")).getText());
        browser.screenshot("audit");

        browser.open(url("/console/entry?consumer=orders&id=no-such-event"));
        assertEquals("No such entry", browser.element(By.id("problem-title")).getText());
        browser.screenshot("problem-not-found");
        browser.open(url("/console/no-such-page/<b>x</b>"));
        assertEquals("No such page", browser.element(By.id("problem-title")).getText());
        assertTrue(driver.getPageSource().contains("/console/no-such-page/&lt;b&gt;x&lt;/b&gt;"), "the path, escaped");
        assertEquals(1, db.count("select count(*) from admin_audit where action = 'replay' and target = ? and actor = ?",
                event, actor));
    }

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
    void entriesAreFilteredByStatusAggregateAndTimeAndPagedWithoutGapsOrRepeats() {
        String group = unique("grp");
        List<String> sent = new ArrayList<>();
        for (int batch = 0; batch < 6; batch++) {
            List<String> bodies = new ArrayList<>();
            for (int i = 0; i < 10 && sent.size() < ConsolePages.PAGE_SIZE + 5; i++) {
                String id = unique("rej");
                sent.add(id);
                bodies.add(ledger(id, group, "{\"reject\":true}"));
            }
            queues.sendBatch("ledger.fifo", group, bodies);
        }
        eventually().until(() -> db.count("select count(*) from inbox_messages where consumer_name = 'ledger'"
                + " and aggregate_id = ? and status = 'REJECTED'", group) == sent.size());

        signIn();
        browser.open(url("/console/entries?consumer=ledger&status=REJECTED&aggregateId=" + group));
        List<String> first = shownIds();
        assertEquals(ConsolePages.PAGE_SIZE, first.size());
        assertTrue(driver.findElements(By.id("previous")).isEmpty(), "no newer page before the first");
        browser.screenshot("entries-paged");
        browser.follow(browser.element(By.id("next")));
        List<String> second = shownIds();
        assertEquals(5, second.size());
        assertTrue(driver.findElements(By.id("next")).isEmpty(), "no page after the last");
        Set<String> all = new HashSet<>(first);
        all.addAll(second);
        assertEquals(new HashSet<>(sent), all, "every entry once, on one page or the other");
        browser.follow(browser.element(By.id("previous")));
        assertEquals(first, shownIds());

        // Another status, or a window in the future, shows none of them; a bad instant is a clear error.
        browser.open(url("/console/entries?consumer=ledger&status=DEAD&aggregateId=" + group));
        assertEquals(List.of(), shownIds());
        browser.open(url("/console/entries?consumer=ledger&aggregateId=" + group + "&status=ANY&from=2999-01-01T00:00:00Z"));
        assertEquals(List.of(), shownIds());
        browser.open(url("/console/entries?consumer=ledger&aggregateId=" + group + "&status=ANY&from=yesterday"));
        assertTrue(browser.element(By.id("error")).getText().contains("from"), browser.element(By.id("error")).getText());
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

    // ------------------------------------------------------------------------------------------ helpers

    /** The console's clock, set by the test. */
    static class MovableClock extends ConsoleClock {
        volatile Instant now;

        MovableClock(Instant now) {
            this.now = now;
        }

        @Override
        public Instant now() {
            return now;
        }
    }

    private void signIn() {
        browser.open(url("/console/sign-in"));
        browser.element(By.id("token")).sendKeys(TOKEN);
        browser.follow(browser.element(By.id("sign-in")));
        browser.waiting().until(d -> d.getCurrentUrl().endsWith("/console"));
    }

    /** Who this browser's session is in the audit. */
    private String actor() {
        return "console " + browser.element(By.id("session")).getText();
    }

    private String sessionCookie() {
        return ConsoleSessions.COOKIE + "=" + driver.manage().getCookieNamed(ConsoleSessions.COOKIE).getValue();
    }

    private List<String> shownIds() {
        return driver.findElements(By.cssSelector("#entries tr[data-message-id]")).stream()
                .map(row -> row.getAttribute("data-message-id")).toList();
    }

    private WebElement entryRow(String messageId) {
        return browser.element(By.cssSelector("#entries tr[data-message-id='" + messageId + "']"));
    }

    private List<WebElement> attemptRows() {
        return driver.findElements(By.cssSelector("#attempts tbody tr")).stream()
                .filter(r -> r.findElements(By.className("muted")).isEmpty()).toList();
    }

    private Map<String, String> keyValues(String table) {
        Map<String, String> values = new HashMap<>();
        for (WebElement row : driver.findElements(By.cssSelector("#" + table + " tr"))) {
            values.put(row.findElement(By.tagName("th")).getText(), row.findElement(By.tagName("td")).getText());
        }
        return values;
    }

    /** minute → value of one series of one plot, as the SVG's points carry them. */
    private Map<String, String> points(String plot, String series) {
        Map<String, String> points = new HashMap<>();
        for (WebElement point : driver.findElements(By.cssSelector("svg#" + plot + " circle[data-series='" + series + "']"))) {
            points.put(point.getAttribute("data-minute"), point.getAttribute("data-value"));
        }
        return points;
    }

    private String url(String path) {
        return root.toString().replaceAll("/$", "") + path;
    }

    private HttpResponse<String> get(String path, String cookie) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url(path))).GET();
        if (cookie != null) {
            request.header("Cookie", cookie);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, Map<String, String> form, String cookie) {
        String body = form.entrySet().stream().map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8)).collect(Collectors.joining("&"));
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url(path)))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (cookie != null) {
            request.header("Cookie", cookie);
        }
        try {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
