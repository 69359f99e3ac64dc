package dev.txinbox.messaging;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.jboss.logmanager.ExtLogRecord;
import org.jboss.logmanager.Level;
import org.junit.jupiter.api.Test;

/** SmallRye's wiring warning is dropped only when every component it names belongs to a switched-off channel. */
class SwitchedOffChannelsLogFilterTest {

    private final SwitchedOffChannelsLogFilter filter = new SwitchedOffChannelsLogFilter("notifications"::equals);

    @Test
    void theMethodOfASwitchedOffChannelDoesNotWarn() {
        assertFalse(filter.isLoggable(wiringReport(
                "SubscriberMethod{method:'dev.txinbox.messaging.sqs.InboxChannels#notifications', incoming:'notifications'}"
                        + " has no upstream")));
    }

    @Test
    void anyOtherUnconnectedComponentStillWarnsWhole() {
        assertTrue(filter.isLoggable(wiringReport(
                "SubscriberMethod{method:'dev.txinbox.messaging.sqs.InboxChannels#notifications', incoming:'notifications'}"
                        + " has no upstream",
                "SubscriberMethod{method:'dev.txinbox.messaging.sqs.InboxChannels#orders', incoming:'orders'}"
                        + " has no upstream")));
        assertTrue(filter.isLoggable(wiringReport(
                "PublisherMethod{method:'x.Y#events', outgoing:'notifications'} has no downstream")));
    }

    @Test
    void otherLinesPass() {
        assertTrue(filter.isLoggable(record("SRMSG00231: Incoming channel `notifications` disabled by configuration")));
    }

    private static ExtLogRecord wiringReport(String... components) {
        StringBuilder text = new StringBuilder(
                "Some components are not connected to either downstream consumers or upstream producers:\n");
        for (String component : components) {
            text.append("\t- ").append(component).append('\n');
        }
        return record("SRMSG00207: " + text);
    }

    private static ExtLogRecord record(String message) {
        ExtLogRecord record = new ExtLogRecord(Level.WARN, message, ExtLogRecord.FormatStyle.NO_FORMAT,
                "io.smallrye.reactive.messaging.provider");
        record.setLoggerName("io.smallrye.reactive.messaging.provider");
        return record;
    }
}
