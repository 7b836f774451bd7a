package io.epochal.spouts.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class TestBrokerSmokeTest {
  @Test
  void producesConsumesAndRestarts() throws Exception {
    long t0 = System.nanoTime();
    try (TestBroker broker = TestBroker.start()) {
      System.out.println("started in " + (System.nanoTime() - t0) / 1_000_000 + " ms at " + broker.bootstrap());
      broker.createTopic("smoke", 2);
      broker.produce("smoke", 0, null, List.of("a", "b"));
      broker.produce("smoke", 1, null, List.of("c"));
      assertEquals(2, broker.readAll("smoke").get(0).size());
      long t1 = System.nanoTime();
      broker.stopBroker();
      broker.startBroker();
      System.out.println("restarted in " + (System.nanoTime() - t1) / 1_000_000 + " ms at " + broker.bootstrap());
      broker.produce("smoke", 1, null, List.of("d"));
      assertEquals(2, broker.readAll("smoke").get(1).size());
    }
  }
}
