package dev.txinbox.ops.console;

import static dev.txinbox.support.Events.created;
import static dev.txinbox.support.Events.ledger;
import static dev.txinbox.support.Events.paid;
import static dev.txinbox.support.Events.shipped;
import static dev.txinbox.support.Events.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

import dev.txinbox.support.LedgerConsumer;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The console's actions in a real Chromium: redrive a DLQ, release a gap, retry a failure group, each
 * confirmed on its page and checked in the database, the queues and the audit; a form without its session's
 * CSRF token changes nothing.
 */
@QuarkusTest
class ConsoleActionsTest extends ConsoleSupport {

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
}
