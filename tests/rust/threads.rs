// threads.rs: std::thread and std::sync::mpsc, as a Rust program uses them: eight
// workers send their sums over a channel, a shared counter behind Arc<Mutex>, scoped
// joins with return values. The output is the same on every run.
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;

fn main() {
    let (tx, rx) = mpsc::channel();
    let counter = Arc::new(Mutex::new(0u64));
    let mut handles = Vec::new();
    for id in 0..8u64 {
        let tx = tx.clone();
        let counter = Arc::clone(&counter);
        handles.push(thread::spawn(move || {
            let mut sum = 0u64;
            for i in 0..100_000u64 {
                sum += i % (id + 1);
                if i % 1000 == 0 {
                    *counter.lock().unwrap() += 1;
                }
            }
            tx.send((id, sum)).unwrap();
            id * 2
        }));
    }
    drop(tx);
    let mut results: Vec<(u64, u64)> = rx.iter().collect();
    results.sort();
    let returned: u64 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    for (id, sum) in &results {
        println!("worker {} sent {}", id, sum);
    }
    println!("joined: return values sum to {}", returned);
    println!("counter behind a mutex: {}", *counter.lock().unwrap());
}
