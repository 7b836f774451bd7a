package io.epochal.trident;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
    Map<String, Integer> components = new LinkedHashMap<>();
    components.put(component, numTasks);
    Map<String, Fields> outputs = new HashMap<>();
    outputs.put(component, outputFields);
    return topologyContext(components, outputs, component, taskIndex, conf);
  }

  /**
   * The context of task {@code taskIndex} of {@code thisComponent} in a topology of the given components (name to
   * number of tasks; task ids are numbered from 1 across the components in iteration order), each declaring its
   * output fields (none if absent) on the default stream.
   */
  static TopologyContext topologyContext(Map<String, Integer> components, Map<String, Fields> outputFields,
      String thisComponent, int taskIndex, Map<String, Object> conf) {
    Map<Integer, String> taskToComponent = new HashMap<>();
    Map<String, List<Integer>> componentToTasks = new HashMap<>();
    Map<String, Map<String, Fields>> streams = new HashMap<>();
    int nextTask = 1;
    for (Map.Entry<String, Integer> c : components.entrySet()) {
      List<Integer> tasks = new ArrayList<>(c.getValue());
      for (int i = 0; i < c.getValue(); i++) {
        taskToComponent.put(nextTask, c.getKey());
        tasks.add(nextTask++);
      }
      componentToTasks.put(c.getKey(), tasks);
      Map<String, Fields> componentStreams = new HashMap<>();
      Fields fields = outputFields.get(c.getKey());
      componentStreams.put(Utils.DEFAULT_STREAM_ID, fields == null ? new Fields() : fields);
      streams.put(c.getKey(), componentStreams);
    }
    List<Integer> thisTasks = componentToTasks.get(thisComponent);
    if (thisTasks == null || taskIndex < 0 || taskIndex >= thisTasks.size()) {
      throw new IllegalArgumentException("no task " + taskIndex + " of component " + thisComponent + " in "
          + components);
    }
    return new TopologyContext(new StormTopology(new HashMap<>(), new HashMap<>(), new HashMap<>()),
        new HashMap<>(conf), taskToComponent, componentToTasks, streams, new HashMap<>(), "epochal-" + thisComponent,
        null, null, thisTasks.get(taskIndex), null, thisTasks, new HashMap<>(), new HashMap<>(), new HashMap<>(),
        new HashMap<>(), new AtomicBoolean(false), new StormMetricRegistry());
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
