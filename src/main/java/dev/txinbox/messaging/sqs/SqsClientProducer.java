package dev.txinbox.messaging.sqs;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Singleton;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.arc.ClientProxy;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;

/**
 * Puts {@link ResilientSqsClient} in front of the client that the Quarkus SQS extension builds from
 * {@code quarkus.sqs.*}. As the highest-priority alternative it is what every {@code SqsAsyncClient}
 * injection gets, the connector's included (it takes the application's client when exactly one
 * resolves, so no channel-level region or endpoint may be set). The extension's own bean is found
 * through the bean manager, which lists it beside this one; it is kept by
 * {@code quarkus.arc.unremovable-types}.
 */
@ApplicationScoped
public class SqsClientProducer {

    @Produces
    @Singleton
    @Alternative
    @Priority(1)
    SqsAsyncClient resilientSqsClient(BeanManager beans, SqsConnectivity connectivity, MeterRegistry registry,
            ReceivedMessages received) {
        for (Bean<?> bean : beans.getBeans(SqsAsyncClient.class, Any.Literal.INSTANCE)) {
            if (!bean.getBeanClass().equals(SqsClientProducer.class)) {
                SqsAsyncClient extensionClient = (SqsAsyncClient) beans.getReference(bean, SqsAsyncClient.class,
                        beans.createCreationalContext(bean));
                // The instances, not their client proxies: the client's callbacks outlive the application
                // context at shutdown (a backoff ends, a late receive returns), and a proxy called then makes
                // a fresh bean, one that has never heard of the stop and would let the connector poll on.
                return new ResilientSqsClient(extensionClient, ClientProxy.unwrap(connectivity),
                        ClientProxy.unwrap(registry), ClientProxy.unwrap(received));
            }
        }
        throw new IllegalStateException("the Quarkus SQS extension provides no SqsAsyncClient");
    }
}
