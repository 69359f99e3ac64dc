package dev.txinbox.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Map;

import org.junit.jupiter.api.Test;

class StageTimesTest {

    private static String scrape(long commits, long fast, long sends, long quickSends) {
        return String.join("\n",
                "# TYPE txinbox_stage_seconds histogram",
                "txinbox_stage_seconds_bucket{consumer=\"orders\",stage=\"commit\",le=\"0.001\"} " + fast,
                "txinbox_stage_seconds_bucket{consumer=\"orders\",stage=\"commit\",le=\"0.01\"} " + commits,
                "txinbox_stage_seconds_bucket{consumer=\"orders\",stage=\"commit\",le=\"+Inf\"} " + commits,
                "txinbox_stage_seconds_count{consumer=\"orders\",stage=\"commit\"} " + commits,
                "txinbox_stage_seconds_sum{consumer=\"orders\",stage=\"commit\"} " + commits * 0.002,
                "txinbox_outbox_send_latency_seconds_bucket{le=\"0.02\"} " + quickSends,
                "txinbox_outbox_send_latency_seconds_bucket{le=\"0.2\"} " + sends,
                "txinbox_outbox_send_latency_seconds_bucket{le=\"+Inf\"} " + sends,
                "txinbox_outbox_send_latency_seconds_count " + sends,
                "txinbox_outbox_send_latency_seconds_sum " + sends * 0.03,
                "txinbox_outbox_send_latency_seconds_max 0.15");
    }

    @Test
    void theOutboxSendLatencyIsReadAsAStageBesideTheInboxStages() {
        StageTimes before = StageTimes.parse(scrape(100, 50, 10, 10));
        Map<String, StageTimes.Stage> since = StageTimes.parse(scrape(200, 60, 110, 20)).since(before);

        StageTimes.Stage commit = since.get("commit");
        assertEquals(100, commit.messages());
        assertEquals(10.0, commit.p50Ms()); // 10 of the 100 new ones under 1 ms
        assertEquals(2.0, commit.meanMs());

        StageTimes.Stage outbox = since.get(StageTimes.OUTBOX);
        assertEquals(100, outbox.messages());
        assertEquals(200.0, outbox.p50Ms()); // 10 of the 100 new sends under 20 ms, the rest under 200
        assertEquals(30.0, outbox.meanMs());
    }

    @Test
    void withNoEventSentTheOutboxStageIsLeftOut() {
        StageTimes before = StageTimes.parse(scrape(100, 50, 10, 10));
        assertFalse(StageTimes.parse(scrape(200, 60, 10, 10)).since(before).containsKey(StageTimes.OUTBOX));
    }
}
