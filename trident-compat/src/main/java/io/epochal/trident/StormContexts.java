package io.epochal.trident;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.metrics2.StormMetricRegistry;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.trident.operation.TridentOperationContext;
import org.apache.storm.tuple.Fields;
import org.apache.storm.utils.Utils;

/**
 * Storm contexts for Trident code running on the Epochal engine, where there is no Storm worker: a
 * {@link TopologyContext} describing one component with {@code numTasks} tasks (task ids 1..n, this task's index
 * given), with a fresh metric registry, so that {@code getThisTaskIndex()}, {@code getComponentTasks(..)} and metric
 * registration work. Storm's cluster services (ZooKeeper, blob store, hooks) are not available. Also copies Trident
 * operations as Storm does (Java serialization), so each partition or thread has its own instance.
 */
final class StormContexts {
  private StormContexts() {
  }

  static TopologyContext topologyContext(String component, Map<String, Object> conf, Fields outputFields,
      int taskIndex, int numTasks) {
    Map<Integer, String> taskToComponent = new HashMap<>();
    List<Integer> tasks = new ArrayList<>(numTasks);
    for (int i = 1; i <= numTasks; i++) {
      taskToComponent.put(i, component);
      tasks.add(i);
    }
    Map<String, List<Integer>> componentToTasks = new HashMap<>();
    componentToTasks.put(component, tasks);
    Map<String, Map<String, Fields>> streams = new HashMap<>();
    Map<String, Fields> componentStreams = new HashMap<>();
    componentStreams.put(Utils.DEFAULT_STREAM_ID, outputFields == null ? new Fields() : outputFields);
    streams.put(component, componentStreams);
    return new TopologyContext(new StormTopology(new HashMap<>(), new HashMap<>(), new HashMap<>()),
        new HashMap<>(conf), taskToComponent, componentToTasks, streams, new HashMap<>(), "epochal-" + component,
        null, null, taskIndex + 1, null, tasks, new HashMap<>(), new HashMap<>(), new HashMap<>(), new HashMap<>(),
        new AtomicBoolean(false), new StormMetricRegistry());
  }

  /** An operation context whose tuple factory matches the tuples the operation is handed ({@code inputFields}). */
  static TridentOperationContext operationContext(String component, Map<String, Object> conf, Fields inputFields,
      int partitionIndex, int numPartitions) {
    return new TridentOperationContext(topologyContext(component, conf, null, partitionIndex, numPartitions),
        FieldsTuple.factory(inputFields == null ? new Fields() : inputFields));
  }

  /** A deep copy by Java serialization, as Storm gives every task its own copy of a topology's components. */
  @SuppressWarnings("unchecked")
  static <T extends Serializable> T copy(T object) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
        out.writeObject(object);
      }
      try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray())) {
        @Override
        protected Class<?> resolveClass(java.io.ObjectStreamClass desc) throws IOException, ClassNotFoundException {
          try {
            return Class.forName(desc.getName(), false, object.getClass().getClassLoader());
          } catch (ClassNotFoundException e) {
            return super.resolveClass(desc);
          }
        }
      }) {
        return (T) in.readObject();
      }
    } catch (IOException | ClassNotFoundException e) {
      throw new IllegalArgumentException("cannot copy " + object.getClass().getName() + " by Java serialization, as "
          + "Storm does for every task: " + e, e);
    }
  }
}
