package dev.txinbox.inbox;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

@ConfigMapping(prefix = "txinbox.inbox")
public interface InboxConfig {

    /** Bodies larger than this are dead-lettered unread (SQS's own limit is 1 MiB). */
    @WithDefault("262144")
    int maxBodyBytes();
}
