// Workload.java: the JVM (HotSpot's JIT, its threads, and its SIGSEGV-based null checks
// and stack banging) under x64emu, compared with the native run: SHA-256, AES-GCM (with
// HotSpot's AES-NI and PCLMULQDQ intrinsics), BigInteger, floating point, the exceptions
// the JVM raises from signals, a thread pool, collections, strings, regular expressions.
import java.math.BigInteger;
import java.security.MessageDigest;
import java.util.*;
import java.util.concurrent.*;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

public class Workload {
  static int depth(int n) { return n == 0 ? 0 : 1 + depth(n - 1); }

  public static void main(String[] args) throws Exception {
    List<String> out = new ArrayList<>();
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    out.add(HexFormat.of().formatHex(sha.digest("abc".getBytes())));
    byte[] data = new byte[1 << 20];
    for (int i = 0; i < data.length; i++) data[i] = (byte) i;
    Cipher gcm = Cipher.getInstance("AES/GCM/NoPadding");
    byte[] sealed = null;
    for (int round = 0; round < 8; round++) { // enough rounds for the JIT to compile it
      byte[] iv = new byte[12];
      iv[0] = (byte) round;
      gcm.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(new byte[16], "AES"), new GCMParameterSpec(128, iv));
      sealed = gcm.doFinal(data);
    }
    out.add(HexFormat.of().formatHex(sha.digest(sealed)));
    out.add(new BigInteger("123456789012345678901234567890").pow(7).mod(BigInteger.valueOf(1000000007)).toString());
    out.add(Math.sin(1e10) + " " + Math.sqrt(2) + " " + Math.pow(1.0001, 10000) + " " + (0.1 + 0.2));
    String none = args.length > 99 ? "" : null;
    try { none.length(); } catch (NullPointerException e) { out.add("NullPointerException"); }
    try { depth(10_000_000); } catch (StackOverflowError e) { out.add("StackOverflowError"); }
    int[] small = new int[10];
    try { small[args.length + 10] = 1; } catch (ArrayIndexOutOfBoundsException e) { out.add("ArrayIndexOutOfBoundsException"); }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Future<Long>> parts = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      final int salt = t;
      parts.add(pool.submit(() -> {
        long sum = 0;
        for (int i = 0; i < 2_000_000; i++) sum += (i ^ salt) % 13;
        return sum;
      }));
    }
    long total = 0;
    for (Future<Long> part : parts) total += part.get();
    pool.shutdown();
    out.add("threads " + total);
    Map<Integer, Integer> counts = new HashMap<>();
    for (int i = 0; i < 500_000; i++) counts.merge(i % 1000, 1, Integer::sum);
    out.add("map " + counts.get(7));
    List<Integer> list = new ArrayList<>();
    Random random = new Random(42);
    for (int i = 0; i < 200_000; i++) list.add(random.nextInt());
    Collections.sort(list);
    out.add("sorted " + list.get(100_000));
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 100_000; i++) text.append(i % 10);
    out.add("text " + text.toString().hashCode());
    System.gc();
    out.add("regex " + "a1b22c333".replaceAll("[0-9]+", "#"));
    for (String line : out) System.out.println(line);
  }
}
