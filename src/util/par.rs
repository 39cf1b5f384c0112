//! Data parallelism for the pure pipeline: a slice cut into one chunk per core, the chunks run
//! on rayon's pool of long-lived threads, results in order. Small inputs stay on the calling
//! thread, where handing work over would cost more than it saves.
//!
//! Long-lived threads matter: tokenizing keeps a stem cache per thread and every regex a
//! lazily built automaton per thread, and a thread started for each call begins both empty
//! (on 10,000 hits that cold start cost more than the work).

use rayon::prelude::*;

/// Calls `f(offset, chunk)` for consecutive chunks of `items` (one per core of the pool, at
/// most eight) and returns the results in chunk order; `offset` is the index of the chunk's
/// first item. With fewer than `min_len` items, or one core, `f` runs once on the whole slice.
///
/// A chunk whose call panics yields `R::default()`: the pipeline's work cannot panic on any
/// text, and were it to, that chunk's items would go unmatched rather than take the answer down.
pub fn chunks<T: Sync, R: Send + Default>(items: &[T], min_len: usize, f: impl Fn(usize, &[T]) -> R + Sync) -> Vec<R> {
    let threads = rayon::current_num_threads().min(8);
    if items.len() < min_len || threads < 2 {
        return vec![f(0, items)];
    }
    let size = items.len().div_ceil(threads);
    items
        .par_chunks(size)
        .enumerate()
        .map(|(c, part)| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(c * size, part))).unwrap_or_default()
        })
        .collect()
}

/// `f` over every item, in order, on all cores for `min_len` items or more. The result always
/// has one entry per item: a chunk lost to a panic is done again on the calling thread.
pub fn map<T: Sync, R: Send>(items: &[T], min_len: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let out: Vec<R> = chunks(items, min_len, |_, part| part.iter().map(&f).collect::<Vec<R>>())
        .into_iter()
        .flatten()
        .collect();
    if out.len() == items.len() {
        out
    } else {
        items.iter().map(f).collect()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_keep_their_order_and_offsets() {
        let items: Vec<usize> = (0..10_001).collect();
        let parts = super::chunks(&items, 100, |offset, part| {
            assert_eq!(part[0], offset);
            part.len()
        });
        assert_eq!(parts.iter().sum::<usize>(), items.len());
        assert_eq!(
            super::map(&items, 100, |x| x * 2),
            items.iter().map(|x| x * 2).collect::<Vec<_>>()
        );
        assert_eq!(super::map(&items[..3], 100, |x| x + 1), [1, 2, 3]);
    }
}
