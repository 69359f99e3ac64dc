package dev.txinbox.outbox;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * Tells the relays of this process that events were committed, so that they send them at once instead of at their
 * next poll (the after-commit hook of {@link Outbox} rings it).
 */
@ApplicationScoped
public class OutboxSignal {

    private final List<Wakeup> relays = new CopyOnWriteArrayList<>();

    public void wake() {
        relays.forEach(Wakeup::ring);
    }

    void register(Wakeup wakeup) {
        relays.add(wakeup);
    }

    void unregister(Wakeup wakeup) {
        relays.remove(wakeup);
    }
}
