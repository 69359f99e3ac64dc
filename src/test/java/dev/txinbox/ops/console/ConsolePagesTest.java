package dev.txinbox.ops.console;

import static dev.txinbox.support.Events.created;
import static dev.txinbox.support.Events.ledger;
import static dev.txinbox.support.Events.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.WebElement;

import io.quarkus.test.junit.QuarkusTest;

/**
 * The console's read-only pages in a real Chromium: entries (filtered and paged), an entry, failures, the
 * audit, and the problem page for what the console cannot answer; a message's content is always shown as text.
 */
@QuarkusTest
class ConsolePagesTest extends ConsoleSupport {

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


    private List<String> shownIds() {
        return driver.findElements(By.cssSelector("#entries tr[data-message-id]")).stream()
                .map(row -> row.getAttribute("data-message-id")).toList();
    }
}
