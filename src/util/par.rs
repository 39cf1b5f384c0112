//! Data parallelism for the pure pipeline: a slice cut into one chunk per core, each chunk
//! handled on a scoped thread, results in order. Small inputs stay on the calling thread,
//! where starting threads would cost more than it saves.

/// Calls `f(offset, chunk)` for consecutive chunks of `items` (one per core, at most eight) and
/// returns the results in chunk order; `offset` is the index of the chunk's first item. With
/// fewer than `min_len` items, or one core, `f` runs once on the whole slice.
///
/// A chunk whose thread panics yields `R::default()`: the pipeline's work cannot panic on any
/// text, and were it to, that chunk's items would go unmatched rather than take the answer down.
pub fn chunks<T: Sync, R: Send + Default>(items: &[T], min_len: usize, f: impl Fn(usize, &[T]) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    if items.len() < min_len || threads < 2 {
        return vec![f(0, items)];
    }
    let size = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(size)
            .enumerate()
            .map(|(c, part)| scope.spawn(move || f(c * size, part)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_default()).collect()
    })
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
