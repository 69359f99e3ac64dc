package dev.txinbox.messaging;

import java.util.List;
import java.util.function.Predicate;
import java.util.logging.Filter;
import java.util.logging.LogRecord;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logmanager.ExtLogRecord;

import io.quarkus.logging.LoggingFilter;

/**
 * Keeps SmallRye's start-up wiring warning (SRMSG00207) off the console when all it reports is the method of a
 * channel switched off by configuration ({@code mp.messaging.incoming.<name>.enabled=false}, as the notifications
 * consumer is by default): such a method has no upstream on purpose, and SmallRye has already said, at INFO, that
 * the channel is off. Any other unconnected component, alone or beside those, still warns, whole.
 */
@LoggingFilter(name = "switched-off-channels")
public final class SwitchedOffChannelsLogFilter implements Filter {

    private static final String WIRING_REPORT = "SRMSG00207";
    private static final Pattern COMPONENT = Pattern.compile("^\\s*- (.*)$", Pattern.MULTILINE);
    private static final Pattern NO_UPSTREAM = Pattern.compile("incoming:'([^']+)'\\} has no upstream$");

    private final Predicate<String> switchedOff;

    public SwitchedOffChannelsLogFilter() {
        this(channel -> !ConfigProvider.getConfig()
                .getOptionalValue("mp.messaging.incoming." + channel + ".enabled", Boolean.class).orElse(true));
    }

    SwitchedOffChannelsLogFilter(Predicate<String> switchedOff) {
        this.switchedOff = switchedOff;
    }

    @Override
    public boolean isLoggable(LogRecord record) {
        String text = record instanceof ExtLogRecord ext ? ext.getFormattedMessage() : record.getMessage();
        if (text == null || !text.startsWith(WIRING_REPORT)) {
            return true;
        }
        List<String> components = COMPONENT.matcher(text).results().map(m -> m.group(1).strip()).toList();
        return components.isEmpty() || !components.stream().allMatch(this::switchedOffMethod);
    }

    private boolean switchedOffMethod(String component) {
        Matcher m = NO_UPSTREAM.matcher(component);
        return m.find() && switchedOff.test(m.group(1));
    }
}
