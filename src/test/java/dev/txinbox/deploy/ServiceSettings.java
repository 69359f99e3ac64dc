package dev.txinbox.deploy;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.txinbox.config.TxinboxConfig;
import io.smallrye.config.ConfigMappingInterface.Property;
import io.smallrye.config.ConfigMappings;

/**
 * The service's settings as environment variables, read from its configuration tree without starting it:
 * the {@code txinbox.*} mapping ({@link TxinboxConfig}, its defaults and what has none), and
 * application.properties (every property it sets, in any profile, and the variables it reads by name).
 *
 * @param known every variable the service reads
 * @param required the variables every deployment must set: a {@code txinbox.*} setting with neither a default
 *        nor a value in application.properties, or a property whose value there only fits a developer's machine
 *        (a server on the loopback address)
 */
record ServiceSettings(Set<String> known, Set<String> required) {

    static final Path PROPERTIES = Path.of("src/main/resources/application.properties");
    private static final Pattern READ_BY_NAME = Pattern.compile("\\$\\{([A-Z][A-Z0-9_]*)[:}]");
    private static final Pattern CONSUMER = Pattern.compile("^txinbox\\.consumers\\.([^.]+)\\.");
    private static final Pattern LOOPBACK = Pattern.compile("//(127\\.0\\.0\\.1|localhost)[:/]");

    static ServiceSettings read() throws IOException {
        String text = Files.readString(PROPERTIES);
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(PROPERTIES)) {
            properties.load(reader);
        }
        Set<String> known = new TreeSet<>();
        Set<String> required = new TreeSet<>();
        Set<String> unprofiled = new TreeSet<>();
        Set<String> consumers = new TreeSet<>();
        for (String key : properties.stringPropertyNames()) {
            String name = key.startsWith("%") ? key.substring(key.indexOf('.') + 1) : key;
            known.add(variable(name));
            Matcher consumer = CONSUMER.matcher(name);
            if (consumer.find()) {
                consumers.add(consumer.group(1));
            }
            if (!key.startsWith("%")) {
                unprofiled.add(name);
                if (LOOPBACK.matcher(properties.getProperty(key)).find()) {
                    required.add(variable(name));
                }
            }
        }
        Matcher read = READ_BY_NAME.matcher(text);
        while (read.find()) {
            known.add(read.group(1));
        }
        Map<String, Property> mapping = ConfigMappings.getProperties(ConfigMappings.ConfigClass.configClass(
                TxinboxConfig.class));
        for (Map.Entry<String, Property> setting : mapping.entrySet()) {
            Property property = setting.getValue();
            if (property.isDefaultMethod()) {
                continue;
            }
            for (String name : expand(setting.getKey(), consumers)) {
                known.add(variable(name));
                if (!property.hasDefaultValue() && !property.isOptional() && !unprofiled.contains(name)) {
                    required.add(variable(name));
                }
            }
        }
        return new ServiceSettings(Set.copyOf(known), Set.copyOf(required));
    }

    /** The environment variable of a property: {@code txinbox.retention.processed} is TXINBOX_RETENTION_PROCESSED. */
    static String variable(String property) {
        return property.replaceAll("[^A-Za-z0-9]", "_").toUpperCase();
    }

    /** A mapping path with a map key ({@code txinbox.consumers.*.queue}) once per configured key. */
    private static Set<String> expand(String path, Set<String> consumers) {
        if (!path.contains("*")) {
            return Set.of(path);
        }
        Set<String> names = new TreeSet<>();
        for (String consumer : consumers) {
            names.add(path.replace("*", consumer));
        }
        return names;
    }
}
