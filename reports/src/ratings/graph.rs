//! Graphs over participants (who scored against whom): what the fit and the pools both ask
//! of them.

/// Strongly connected component id of each node of a digraph given by adjacency lists
/// (Kosaraju, iterative).
pub(super) fn strong_components(adj: &[Vec<usize>]) -> Vec<usize> {
    let m = adj.len();
    let mut order = Vec::with_capacity(m);
    let mut seen = vec![false; m];
    for s in 0..m {
        if seen[s] {
            continue;
        }
        seen[s] = true;
        let mut stack = vec![(s, 0usize)];
        while let Some((v, k)) = stack.pop() {
            if k < adj[v].len() {
                stack.push((v, k + 1));
                let w = adj[v][k];
                if !seen[w] {
                    seen[w] = true;
                    stack.push((w, 0));
                }
            } else {
                order.push(v);
            }
        }
    }
    let mut radj = vec![Vec::new(); m];
    for (v, ws) in adj.iter().enumerate() {
        for &w in ws {
            radj[w].push(v);
        }
    }
    let mut comp = vec![usize::MAX; m];
    let mut c = 0;
    for &s in order.iter().rev() {
        if comp[s] != usize::MAX {
            continue;
        }
        comp[s] = c;
        let mut stack = vec![s];
        while let Some(v) = stack.pop() {
            for &w in &radj[v] {
                if comp[w] == usize::MAX {
                    comp[w] = c;
                    stack.push(w);
                }
            }
        }
        c += 1;
    }
    comp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strong_components_of_a_chain_are_separate() {
        let c = strong_components(&[vec![1], vec![2], vec![]]);
        assert!(c[0] != c[1] && c[1] != c[2]);
        let c = strong_components(&[vec![1], vec![2], vec![0]]);
        assert!(c[0] == c[1] && c[1] == c[2]);
    }
}
