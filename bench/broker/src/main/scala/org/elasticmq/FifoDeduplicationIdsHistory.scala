// Derived from ElasticMQ 1.7.1's FifoDeduplicationIdsHistory.scala (elasticmq-core_2.13-1.7.1-sources.jar, Apache
// License 2.0), for the txinbox benchmarks only; what changed is said below.
package org.elasticmq

import com.typesafe.scalalogging.LazyLogging
import org.elasticmq.FifoDeduplicationIdsHistory.DeduplicationIntervalMinutes
import org.elasticmq.actor.queue.InternalMessage
import org.elasticmq.util.NowProvider

import scala.annotation.tailrec
import scala.collection.immutable.Queue

/** ElasticMQ 1.7.1's history of a FIFO queue's deduplication ids, with the same behaviour and API, but the ids in
  * creation order kept in a `Queue` instead of a `List`: the original appends each id with `List.:+`, which copies the
  * whole list, so every send costs time in proportion to the queue's sends of the last five minutes. Benchmarks only
  * (bench/broker, docs/BENCHMARKS.md): SQS's cost per send does not grow so.
  */
case class FifoDeduplicationIdsHistory(
    messagesByDeduplicationId: Map[DeduplicationId, InternalMessage],
    deduplicationIdsByCreationDate: Queue[DeduplicationIdWithCreationDate]
) extends LazyLogging {

  def addNew(message: InternalMessage): FifoDeduplicationIdsHistory = {
    message.messageDeduplicationId match {
      case Some(deduplicationId) if !messagesByDeduplicationId.contains(deduplicationId) =>
        new FifoDeduplicationIdsHistory(
          messagesByDeduplicationId + ((deduplicationId, message)),
          deduplicationIdsByCreationDate.enqueue(DeduplicationIdWithCreationDate(deduplicationId, message.created))
        )
      case _ => this
    }
  }

  def wasRegistered(maybeDeduplicationId: Option[DeduplicationId]): Option[InternalMessage] =
    maybeDeduplicationId.flatMap(deduplicationId => messagesByDeduplicationId.get(deduplicationId))

  def cleanOutdatedMessages(nowProvider: NowProvider): FifoDeduplicationIdsHistory = {
    val now = nowProvider.now
    @tailrec
    def go(removed: List[DeduplicationId], rest: Queue[DeduplicationIdWithCreationDate])
        : (List[DeduplicationId], Queue[DeduplicationIdWithCreationDate]) =
      rest.headOption match {
        case Some(oldest) if oldest.creationDate.plusMinutes(DeduplicationIntervalMinutes).isBefore(now) =>
          go(oldest.id :: removed, rest.tail)
        case _ => (removed, rest)
      }
    val (idsToRemove, notTerminated) = go(Nil, deduplicationIdsByCreationDate)
    if (idsToRemove.isEmpty) this
    else new FifoDeduplicationIdsHistory(messagesByDeduplicationId -- idsToRemove, notTerminated)
  }
}

object FifoDeduplicationIdsHistory {
  val DeduplicationIntervalMinutes = 5L

  def newHistory(): FifoDeduplicationIdsHistory = FifoDeduplicationIdsHistory(Map.empty, Queue.empty)
}
