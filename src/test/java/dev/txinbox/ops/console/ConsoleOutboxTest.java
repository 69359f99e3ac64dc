package dev.txinbox.ops.console;

import static dev.txinbox.support.Events.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

import dev.txinbox.outbox.Outbox;
import io.quarkus.test.junit.QuarkusTest;

/** The console's outbox page in a real Chromium: a stream the broker refuses, and skipping its head event. */
@QuarkusTest
class ConsoleOutboxTest extends ConsoleSupport {

    @Inject
    Outbox outbox;

    @Test
    void anOutboxEventTheBrokerRefusesShowsAsAWaitingStreamAndSkippingItLetsTheNextOneGo() {
        String aggregate = unique("agg");
        UUID[] ids = waitingStream(outbox, aggregate);

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
}
