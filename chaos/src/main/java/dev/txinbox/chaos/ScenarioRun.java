package dev.txinbox.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;

import dev.txinbox.harness.Db;
import dev.txinbox.harness.Chain;
import dev.txinbox.harness.Options;
import dev.txinbox.harness.OrderStream;
import dev.txinbox.harness.Outgoing;
import dev.txinbox.harness.Producer;
import dev.txinbox.harness.Quiescence;
import dev.txinbox.harness.Service;
import dev.txinbox.harness.Sqs;
import dev.txinbox.harness.Verifier;

/**
 * One scenario, start to verdict: a fresh database, its own queues, the service (one or two instances),
 * the stream sent at a steady rate while the fault plays out, then quiescence, the oracle, and the whole chain
 * downstream: the outbox's events applied by the notifications consumer, which each instance runs beside orders.
 */
final class ScenarioRun {

    private static final String DATABASE = "txinbox_chaos";

    private final Chaos.Scenario scenario;
    private final Options<ChaosSuite> options;
    private final Broker broker;
    private final Sqs sqs;
    private final Random random;
    private final Service[] services;
    private final int[] starts;
    private final List<String> notes = new ArrayList<>();
    private final long startedAt = System.currentTimeMillis();
    private OrderStream stream;

    ScenarioRun(Chaos.Scenario scenario, Options<ChaosSuite> options, Broker broker, Sqs sqs, Random random) {
        this.scenario = scenario;
        this.options = options;
        this.broker = broker;
        this.sqs = sqs;
        this.random = random;
        this.services = new Service[scenario.instances()];
        this.starts = new int[scenario.instances()];
    }

    ScenarioResult run() throws Exception {
        Db.reset(DATABASE);
        stream = OrderStream.generate(scenario.spec(), scenario.key() + "-");
        for (int slot = 0; slot < services.length; slot++) {
            restart(slot);
        }
        String queueUrl = broker.queueUrl(scenario.queue().name());
        long firstSend = System.currentTimeMillis();
        AtomicReference<Throwable> producerFailure = new AtomicReference<>();
        Thread producer = new Thread(() -> {
            try {
                new Producer(sqs.client(), queueUrl, 4, options.suite().rate).send(stream);
            } catch (Throwable e) {
                producerFailure.set(e);
            }
        }, "chaos-producer");
        producer.start();
        scenario.fault().inject(this);
        producer.join();
        if (producerFailure.get() != null) {
            throw new IllegalStateException("the producer failed", producerFailure.get());
        }
        long calm = System.currentTimeMillis();
        boolean quiet = new Quiescence(sqs, queueUrl, broker.queueUrl(scenario.queue().dlqName()), DATABASE,
                stream.oracle(), 0).await(Arrays.asList(services), this::note);
        long quiescent = System.currentTimeMillis();

        long dlqDepth = sqs.depth(broker.queueUrl(scenario.queue().dlqName()));
        Verifier.Verdict verdict = Verifier.txinbox(Db.url(DATABASE), stream.oracle(), dlqDepth);
        DeadLetters deadLetters = DeadLetters.inspect(sqs, broker.queueUrl(scenario.queue().dlqName()), poisonBodies());
        // While the instances still run: the relay publishes what the inbox's last batches recorded, and the
        // notifications consumer applies it.
        Chain chain = Chain.inspect(sqs, broker.queueUrl(Service.eventsQueue(scenario.queue().name())),
                broker.queueUrl(Service.eventsDlq(scenario.queue().name())), Db.url(DATABASE), this::note);
        Map<String, Double> counters = counters();
        for (int slot = 0; slot < services.length; slot++) {
            terminate(slot);
        }
        return new ScenarioResult(scenario.key(), scenario.title(), scenario.spec().describe(), stream.oracle().messages(),
                stream.oracle().events(), stream.oracle().poisonMessages(), List.copyOf(notes), verdict, deadLetters, chain,
                counters, quiet, (quiescent - firstSend) / 1000.0, (quiescent - calm) / 1000.0);
    }

    // ------------------------------------------------------------------ what faults use

    Random random() {
        return random;
    }

    Broker broker() {
        return broker;
    }

    String database() {
        return DATABASE;
    }

    void note(String what) {
        String line = String.format("%6.1f s  %s (processed %d of %d)", (System.currentTimeMillis() - startedAt) / 1000.0,
                what, processed(), stream.oracle().events());
        notes.add(line);
        System.out.println("  " + line);
    }

    /** Blocks until {@code fraction} of the stream's events are processed. */
    void awaitProgress(double fraction) throws InterruptedException {
        long target = (long) Math.ceil(fraction * stream.oracle().events());
        long deadline = System.currentTimeMillis() + Quiescence.STALL.toMillis() * 3;
        while (processed() < target) {
            Service.requireAlive(Arrays.asList(services));
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("the stream did not reach " + target + " processed events");
            }
            Thread.sleep(100);
        }
    }

    void kill(int slot) throws InterruptedException {
        note("kill -9 instance " + (slot + 1) + " (pid " + services[slot].pid() + ")");
        services[slot].kill();
    }

    /** SIGTERM, and how long the instance took to stop: graceful means it drains and exits on its own. */
    void terminate(int slot) throws InterruptedException {
        Service service = services[slot];
        if (service == null || !service.isAlive()) {
            return;
        }
        long t0 = System.currentTimeMillis();
        service.close();
        long took = System.currentTimeMillis() - t0;
        if (!service.isAlive()) {
            int exit = service.child().exitValue();
            if (took > 25_000 || (exit != 0 && exit != 143)) {
                note("instance " + (slot + 1) + " did not stop cleanly on SIGTERM: exit " + exit + " after " + took + " ms");
            } else if (scenario.key().equals("sigterm")) {
                note("SIGTERM instance " + (slot + 1) + ": stopped in " + took + " ms, exit " + exit);
            }
        }
    }

    void restart(int slot) throws Exception {
        starts[slot]++;
        Path log = options.logs().resolve(scenario.key() + "-" + (slot + 1) + "-" + starts[slot] + ".log");
        Map<String, String> extra = new HashMap<>();
        extra.put("TXINBOX_CONSUMERS_ORDERS_VISIBILITY_TIMEOUT", scenario.visibilityTimeout().toSeconds() + "s");
        // The chain: every fault hits the consumer downstream too, in the same process.
        extra.put("TXINBOX_NOTIFICATIONS_ENABLED", "true");
        extra.put("TXINBOX_NOTIFICATIONS_DLQ", Service.eventsDlq(scenario.queue().name()));
        extra.put("TXINBOX_CONSUMERS_NOTIFICATIONS_VISIBILITY_TIMEOUT", scenario.visibilityTimeout().toSeconds() + "s");
        // The oracle checks each applied event against the outbox event it recorded (Recorded): keep the published
        // ones. Deleting instead of marking is the same statement of the relay's round, at the same point.
        extra.put("TXINBOX_OUTBOX_KEEP_PUBLISHED", "true");
        // INFO, unlike the benchmark: a chaos run's logs are its evidence.
        extra.put("QUARKUS_LOG_CATEGORY__DEV_TXINBOX__LEVEL", "INFO");
        services[slot] = Service.start(options.jar(), List.of(), Service.env(DATABASE, broker.endpoint(),
                scenario.queue().name(), scenario.queue().dlqName(), options.httpPort() + slot, extra), log);
        services[slot].awaitReady(Duration.ofMinutes(2));
    }

    // ------------------------------------------------------------------ quiescence and evidence

    /** PROCESSED inbox rows so far; -1 while PostgreSQL does not answer. */
    private long processed() {
        return Db.processedRows(DATABASE);
    }

    private List<String> poisonBodies() {
        List<String> bodies = new ArrayList<>();
        for (List<Outgoing> group : stream.groups()) {
            for (Outgoing message : group) {
                if (message.kind() == Outgoing.Kind.POISON) {
                    bodies.add(message.body());
                }
            }
        }
        return bodies;
    }

    /** The live instances' txinbox counters, summed (a killed instance's counters died with it). */
    private Map<String, Double> counters() {
        Map<String, Double> sums = new HashMap<>();
        for (int slot = 0; slot < services.length; slot++) {
            Path file = options.logs().resolve(scenario.key() + "-" + (slot + 1) + ".metrics");
            services[slot].saveMetrics(file);
            try {
                for (String line : Files.readAllLines(file)) {
                    if (line.startsWith("#") || line.isBlank()) {
                        continue;
                    }
                    int space = line.lastIndexOf(' ');
                    // The orders consumer's counters unlabelled, as before the chain; the notifications consumer's
                    // keep their label.
                    String name = line.substring(0, space).replaceAll("consumer=\"orders\",?", "").replace(",}", "}")
                            .replace("{}", "");
                    sums.merge(name, Double.parseDouble(line.substring(space + 1)), Double::sum);
                }
            } catch (IOException | RuntimeException e) {
                // counters are context; the database is the evidence
            }
        }
        Map<String, Double> kept = new TreeMap<>();
        sums.forEach((k, v) -> {
            if (k.contains("consumer=\"notifications\"") && v == 0) {
                return; // the consumer downstream: only what happened
            }
            if (k.startsWith("txinbox_messages_total") || k.startsWith("txinbox_ack_failures")
                    || k.startsWith("txinbox_expired") || k.startsWith("txinbox_held_back")) {
                kept.put(k, v);
            }
        });
        return kept;
    }
}
