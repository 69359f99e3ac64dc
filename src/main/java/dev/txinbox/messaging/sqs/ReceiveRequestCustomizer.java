package dev.txinbox.messaging.sqs;

import java.util.List;

import jakarta.enterprise.context.Dependent;

import io.smallrye.common.annotation.Identifier;
import io.smallrye.reactive.messaging.aws.sqs.SqsReceiveMessageRequestCustomizer;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest;

/**
 * Shapes every receive of txinbox's channels ({@code receive.request.customizer=txinbox}).
 * <ul>
 * <li>The connector asks for no system attributes; the inbox needs MessageGroupId, SequenceNumber,
 * ApproximateReceiveCount, SentTimestamp and ApproximateFirstReceiveTimestamp.</li>
 * <li>The producer's trace context: the {@code traceparent} message attribute; X-Ray's {@code AWSTraceHeader}
 * comes with the system attributes.</li>
 * <li>It does ask for the {@code _classname} attribute, and when a producer sets one it deserialises the
 * body into that class while emitting: an unknown class name ends the channel. Asking only for the
 * attributes txinbox reads means no producer can do that.</li>
 * <li>It tells {@link SqsConnectivity} of each poll, for liveness per receive loop: the connector shapes every poll
 * of a loop with the customizer it looked up for that loop ({@code concurrency} loops, each a channel of its own),
 * and, this bean being {@code @Dependent}, each loop has an instance of its own. Nothing else tells one loop's polls
 * from another's: a poll runs on whichever thread asked for more.</li>
 * </ul>
 */
@Dependent
@Identifier(ReceiveRequestCustomizer.ID)
public class ReceiveRequestCustomizer implements SqsReceiveMessageRequestCustomizer {

    public static final String ID = "txinbox";

    private final SqsConnectivity connectivity;

    public ReceiveRequestCustomizer(SqsConnectivity connectivity) {
        this.connectivity = connectivity;
    }

    @Override
    public void customize(ReceiveMessageRequest.Builder builder) {
        builder.messageSystemAttributeNames(MessageSystemAttributeName.ALL)
                .messageAttributeNames(List.of(SqsDelivery.EVENT_ID_ATTRIBUTE, SqsDelivery.TRACEPARENT_ATTRIBUTE));
        connectivity.polled(builder.build().queueUrl(), this);
    }
}
