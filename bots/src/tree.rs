//! The search tree of information-set MCTS, flat in memory: one `Vec` of fixed-size nodes and
//! one of edges, each node's children a block of edges (action, child) sorted by action (no
//! allocation per node), built once per search with room for every node it can add. A node's
//! children are read from its block at once rather than chased from sibling to sibling: in a
//! tree too large for the cache, that chase was most of what offering a node cost.

use engine::core::{ActionId, Game};

const NONE: u32 = u32::MAX;

/// Visit counts below this are looked up in a table of `1/√n` rather than computed.
const TABLED_VISITS: usize = 4096;

/// Availability counts below this are looked up in a table of `√(ln n)` (256 kB): past
/// `strong`'s 20,000 iterations in journey, since a root's children are available in every
/// iteration and a logarithm costs some 40 instructions where a look costs one (with a table
/// of 4096, the logarithms were 3% of a 20,000-iteration journey search's instructions; an
/// expedition iteration plays some 200 actions, and its logarithms weigh nothing).
const TABLED_AVAILABLE: usize = 1 << 15;

/// `√(ln n)` and `1/√n` for the counts the search meets most.
struct Tables {
    sqrt_ln: Vec<f64>,
    rsqrt: Vec<f64>,
}

fn tables() -> &'static Tables {
    static TABLES: std::sync::OnceLock<Tables> = std::sync::OnceLock::new();
    TABLES.get_or_init(|| Tables {
        sqrt_ln: (0..TABLED_AVAILABLE as u32).map(|k| (k.max(1) as f64).ln().sqrt()).collect(),
        rsqrt: (0..TABLED_VISITS as u32).map(|k| 1.0 / (k.max(1) as f64).sqrt()).collect(),
    })
}

/// The exploration term `√(ln available / visits)`, its two factors from the tables where the
/// counts are in them.
#[inline]
fn exploration(t: &Tables, available: u32, visits: u32) -> f64 {
    let a = match t.sqrt_ln.get(available as usize) {
        Some(&a) => a,
        None => f64::from(available).ln().sqrt(),
    };
    let v = match t.rsqrt.get(visits as usize) {
        Some(&v) => v,
        None => 1.0 / f64::from(visits).sqrt(),
    };
    a * v
}

/// Play `action`, taken from `g`'s own list of legal actions: the list already vouches for it,
/// so the engine's second check (`apply` lists them again) is skipped.
#[inline]
pub fn step<G: Game>(g: &mut G, action: ActionId) {
    debug_assert!(!g.is_terminal());
    let a = g.decode(action).expect("a listed action decodes");
    debug_assert!(g.is_listed(action, a), "action {action} is not legal");
    g.perform(a);
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Node {
    /// The action that leads here from the parent (below an action, in a tree that branches
    /// on what the seat observes: the observation's key).
    pub action: ActionId,
    /// Its children: `edges[at..at + len]`, in the order of their actions, in a block of
    /// [`block_room`]`(len)` edges.
    at: u32,
    len: u32,
    pub visits: u32,
    /// Iterations in which this node was legal when its parent was passed through.
    pub available: u32,
    /// The seat that chose the action (whose reward this node accumulates).
    pub mover: u8,
    /// The mean reward of that seat over the visits.
    pub mean: f64,
}

impl Node {
    fn new(action: ActionId, mover: u8) -> Node {
        Node { action, at: 0, len: 0, visits: 0, available: 1, mover, mean: 0.0 }
    }
}

/// A link from a node to a child: the child's action (or observation key) beside its index,
/// so that a node's children are read from one block of memory, not chased node by node.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Edge {
    action: ActionId,
    child: u32,
}

/// The edges a node of `len` children has room for: blocks of 4, 8, 16 … (a node that
/// outgrows its block moves to one twice as large at the end).
#[inline]
fn block_room(len: u32) -> u32 {
    len.next_power_of_two().max(4)
}

/// The search tree (see the module).
pub struct Tree {
    pub(crate) nodes: Vec<Node>,
    /// Every node's children, a block per node.
    edges: Vec<Edge>,
    /// The root's legal actions in id order (the searching seat's own, the same in every
    /// determinization), once the root has been offered them ...
    root_actions: Vec<ActionId>,
    /// ... and the root's child for each (`NONE`: untried): the root, passed through in every
    /// iteration, is offered without looking at its children.
    root_children: Vec<u32>,
}

/// The memory [`Tree::select`] works in: the untried legal actions of the node it was last
/// asked about, and for each action id the child that node has for it, valid where its stamp
/// is that call's (so that it is never cleared).
#[derive(Default)]
pub(crate) struct Offer {
    pub untried: Vec<ActionId>,
    marks: Vec<Mark>,
    stamp: u32,
}

#[derive(Clone, Copy, Default)]
struct Mark {
    stamp: u32,
    child: u32,
}

/// Up to this many children are compared with an action one by one.
const FEW: usize = 8;

/// Action ids up to this are marked in [`Offer::marks`] (a game's action space is far smaller:
/// 5,376 ids in journey, fewer in expedition); a node with a child past it is searched.
const MARKED: u32 = 1 << 16;

/// [`Tree::select`] once each legal action's child (`find(k, legal[k])`) can be looked up:
/// one pass that counts the availabilities and keeps the best UCB as it goes, taken back
/// (and the untried actions listed) at the first action without a child.
#[inline]
fn select_among(
    nodes: &mut [Node],
    legal: &[ActionId],
    c: f64,
    untried: &mut Vec<ActionId>,
    find: impl Fn(usize, ActionId) -> Option<u32>,
) -> Option<u32> {
    debug_assert!(!legal.is_empty());
    untried.clear();
    let t = tables();
    let mut best = (f64::MIN, NONE);
    for (k, &a) in legal.iter().enumerate() {
        let Some(id) = find(k, a) else {
            for (j, &b) in legal[..k].iter().enumerate() {
                let id = find(j, b).expect("a child: the first untried action is the k-th");
                nodes[id as usize].available -= 1;
            }
            untried.push(a);
            untried
                .extend(legal.iter().enumerate().skip(k + 1).filter(|&(j, &b)| find(j, b).is_none()).map(|(_, &b)| b));
            return None;
        };
        let n = &mut nodes[id as usize];
        n.available += 1;
        let ucb = n.mean + c * exploration(t, n.available, n.visits);
        if ucb > best.0 {
            best = (ucb, id);
        }
    }
    Some(best.1)
}

impl Tree {
    /// An empty tree (the root alone) with room for `capacity` nodes (up to a million at
    /// first; it grows past that).
    pub(crate) fn new(capacity: usize) -> Tree {
        let capacity = capacity.clamp(1, 1 << 20);
        let mut nodes = Vec::with_capacity(capacity);
        nodes.push(Node::new(0, 0));
        nodes[0].available = 0;
        // Every node but the root is an edge; blocks are at most half empty.
        let edges = Vec::with_capacity(2 * capacity);
        Tree { nodes, edges, root_actions: Vec::new(), root_children: Vec::new() }
    }

    /// Back to the root alone, keeping the memory.
    pub(crate) fn clear(&mut self) {
        self.nodes.truncate(1);
        self.nodes[0] = Node::new(0, 0);
        self.nodes[0].available = 0;
        self.edges.clear();
        self.root_actions.clear();
        self.root_children.clear();
    }

    /// The children of `node`, in action order.
    #[inline]
    fn edges_of(&self, node: u32) -> &[Edge] {
        let n = &self.nodes[node as usize];
        &self.edges[n.at as usize..][..n.len as usize]
    }

    /// [`Tree::select`] at the root, whose legal actions are the seat's own, the same in every
    /// determinization: its child for each is kept beside them (in action order), so the root,
    /// passed through in every iteration, is offered without looking at its children.
    pub(crate) fn select_root(&mut self, legal: &[ActionId], c: f64, out: &mut Offer) -> Option<u32> {
        if self.root_actions.is_empty() {
            self.root_actions.extend_from_slice(legal);
            self.root_actions.sort_unstable();
            // A root kept from an earlier search has children already.
            let children: Vec<u32> = self.root_actions.iter().map(|&a| self.child(0, a).unwrap_or(NONE)).collect();
            self.root_children = children;
        }
        debug_assert!({
            let mut sorted = legal.to_vec();
            sorted.sort_unstable();
            sorted == self.root_actions
        });
        let Tree { nodes, root_actions, root_children, .. } = self;
        select_among(nodes, root_actions, c, &mut out.untried, |k, _| Some(root_children[k]).filter(|&c| c != NONE))
    }

    /// Where an iteration goes from `node`, given the legal actions of its determinization:
    /// if some have no child yet, `None`, and those actions in `out.untried` (in the legal
    /// list's order) for the caller to expand one; else every legal action's child counts one
    /// more availability and the one with the best UCB (`mean + c·√(ln available / visits)`;
    /// ties: the first) is returned. The node's children are marked by action id, then each
    /// legal action is one look, whatever the number of children (the games list their actions
    /// in an order of their own, which this keeps).
    pub(crate) fn select(&mut self, node: u32, legal: &[ActionId], c: f64, out: &mut Offer) -> Option<u32> {
        let Tree { nodes, edges, .. } = self;
        let Node { at, len, .. } = nodes[node as usize];
        let edges = &edges[at as usize..][..len as usize];
        let Some(last) = edges.last() else {
            out.untried.clear();
            out.untried.extend_from_slice(legal);
            return None;
        };
        // Edges are in action order: the last is the largest id.
        if last.action >= MARKED {
            let find = |_, a: ActionId| edges.binary_search_by_key(&a, |e| e.action).ok().map(|i| edges[i].child);
            return select_among(nodes, legal, c, &mut out.untried, find);
        }
        let Offer { untried, marks, stamp } = out;
        if marks.len() <= last.action as usize {
            marks.resize(last.action as usize + 1, Mark::default());
        }
        *stamp = stamp.wrapping_add(1);
        if *stamp == 0 {
            marks.fill(Mark::default());
            *stamp = 1;
        }
        let stamp = *stamp;
        for e in edges {
            marks[e.action as usize] = Mark { stamp, child: e.child };
        }
        let find = |_, a: ActionId| match marks.get(a as usize) {
            Some(m) if m.stamp == stamp => Some(m.child),
            _ => None,
        };
        select_among(nodes, legal, c, untried, find)
    }

    /// The child of `node` for `action` (or for an observation key, below an action), if any.
    pub(crate) fn child(&self, node: u32, action: ActionId) -> Option<u32> {
        let edges = self.edges_of(node);
        if edges.len() <= FEW {
            return edges.iter().find(|e| e.action == action).map(|e| e.child);
        }
        edges.binary_search_by_key(&action, |e| e.action).ok().map(|i| edges[i].child)
    }

    /// This tree with room for `room` nodes in all.
    pub(crate) fn grown(mut self, room: usize) -> Tree {
        let more = room.saturating_sub(self.nodes.len()).min(1 << 20);
        self.nodes.reserve(more);
        self.edges.reserve(2 * more);
        self
    }

    /// The subtree under `node` as a tree of its own, `node` its root: what a search keeps for
    /// the seat's next decision, reached from here. Room for `room` nodes at first (as
    /// [`Tree::new`]); `None` (and the copy stopped) once it would hold more than `most`.
    pub(crate) fn subtree(&self, node: u32, room: usize, most: usize) -> Option<Tree> {
        let mut t = Tree::new(room);
        t.nodes[0] = Node { at: 0, len: 0, ..self.nodes[node as usize] };
        let mut stack = vec![(node, 0u32)];
        while let Some((old, new)) = stack.pop() {
            let edges = self.edges_of(old);
            if edges.is_empty() {
                continue;
            }
            if t.nodes.len() + edges.len() > most {
                return None;
            }
            let at = t.edges.len() as u32;
            t.nodes[new as usize].at = at;
            t.nodes[new as usize].len = edges.len() as u32;
            for e in edges {
                let id = t.nodes.len() as u32;
                t.nodes.push(Node { at: 0, len: 0, ..self.nodes[e.child as usize] });
                t.edges.push(Edge { action: e.action, child: id });
                stack.push((e.child, id));
            }
            let block = block_room(edges.len() as u32) as usize;
            t.edges.resize(at as usize + block, Edge { action: 0, child: NONE });
        }
        Some(t)
    }

    /// Link `child` below `parent` by `action` (not yet a child there), in action order.
    fn link(&mut self, parent: u32, action: ActionId, child: u32) {
        let Node { at, len, .. } = self.nodes[parent as usize];
        let (mut at, len) = (at as usize, len as usize);
        if len == 0 || len as u32 == block_room(len as u32) {
            // A first block, or one twice as large: at the end.
            let moved = self.edges.len();
            let block = block_room(len as u32 + 1) as usize;
            self.edges.extend_from_within(at..at + len);
            self.edges.resize(moved + block, Edge { action: 0, child: NONE });
            at = moved;
            self.nodes[parent as usize].at = at as u32;
        }
        let block = &mut self.edges[at..at + len + 1];
        let i = block[..len].partition_point(|e| e.action < action);
        block.copy_within(i..len, i + 1);
        block[i] = Edge { action, child };
        self.nodes[parent as usize].len += 1;
    }

    /// A new child of `parent` for `action` (not yet a child).
    pub(crate) fn add_child(&mut self, parent: u32, action: ActionId, mover: u8) -> u32 {
        let id = self.nodes.len() as u32;
        self.nodes.push(Node::new(action, mover));
        self.link(parent, action, id);
        if parent == 0
            && let Ok(i) = self.root_actions.binary_search(&action)
        {
            self.root_children[i] = id;
        }
        id
    }

    /// The child of action node `parent` for what the searching seat observed after the
    /// action (`key`), added if new: the tree branches on chance outcomes it can tell apart.
    pub(crate) fn outcome(&mut self, parent: u32, key: u32) -> u32 {
        if let Some(c) = self.child(parent, key) {
            return c;
        }
        let id = self.nodes.len() as u32;
        self.nodes.push(Node::new(key, 0));
        self.link(parent, key, id);
        id
    }

    /// Every node of `path` adds the reward of the seat that chose its action.
    pub(crate) fn backpropagate(&mut self, path: &[u32], rewards: &[f64]) {
        for &id in path {
            let n = &mut self.nodes[id as usize];
            n.visits += 1;
            n.mean += (rewards[n.mover as usize] - n.mean) / f64::from(n.visits);
        }
    }

    /// The root's most visited child leads every other by more than `remaining` visits: no
    /// further iteration can change which is most visited.
    pub(crate) fn settled(&self, remaining: u32) -> bool {
        let (mut first, mut second) = (0u32, 0u32);
        let mut count = |v: u32| {
            if v > first {
                second = first;
                first = v;
            } else if v > second {
                second = v;
            }
        };
        if self.root_actions.is_empty() {
            self.edges_of(0).iter().for_each(|e| count(self.nodes[e.child as usize].visits));
        } else {
            // Only the children legal now (a kept root may have others, from earlier samples).
            self.root_children.iter().filter(|&&c| c != NONE).for_each(|&c| count(self.nodes[c as usize].visits));
        }
        first > second.saturating_add(remaining)
    }

    /// The children of `node`: (action, visits, total reward), in action order.
    pub(crate) fn children(&self, node: u32) -> Vec<(ActionId, u32, f64)> {
        self.edges_of(node)
            .iter()
            .map(|e| {
                let n = &self.nodes[e.child as usize];
                (e.action, n.visits, n.mean * f64::from(n.visits))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tabled_exploration_term_is_the_formula() {
        let t = tables();
        let counts = (1..5000).step_by(7).chain((30_000..40_000).step_by(997));
        for available in counts {
            for visits in (1..available + 1).step_by(13).chain([available]) {
                let exact = (f64::from(available).ln() / f64::from(visits)).sqrt();
                let got = exploration(t, available, visits);
                assert!((got - exact).abs() <= 1e-12 * exact.max(1.0), "{available} {visits}: {got} vs {exact}");
            }
        }
    }

    /// A tree of nodes of every size below the root's children (ids past [`MARKED`] in the
    /// last round), their statistics from backed-up rewards; and the ids not yet children.
    fn tree_of_every_size(round: u64) -> (Tree, Vec<(u32, Vec<ActionId>)>) {
        use rand::{RngExt, SeedableRng};
        let mut rng = engine::core::SmallRng::seed_from_u64(round);
        let mut tree = Tree::new(256);
        let mut parents = Vec::new();
        for children in [1usize, 5, 8, 9, 40, 64, 65, 120] {
            let parent = tree.add_child(0, 3 * parents.len() as ActionId + 1, 0);
            let big = if round == 2 { MARKED - 100 } else { 0 };
            let mut ids: Vec<ActionId> = (0..400).map(|k| big + k * 7 + 256 * (k % 3)).collect();
            for _ in 0..children {
                let a = ids.swap_remove(rng.random_range(0..ids.len()));
                let child = tree.add_child(parent, a, 0);
                for _ in 0..rng.random_range(1..5) {
                    tree.backpropagate(&[0, parent, child], &[rng.random()]);
                }
            }
            parents.push((parent, ids));
        }
        (tree, parents)
    }

    /// [`Tree::select`] as it reads: each legal action looked up among the children; untried
    /// ones, or else the best UCB after counting one more availability for each.
    fn plain_select(tree: &mut Tree, node: u32, legal: &[ActionId], c: f64) -> Result<u32, Vec<ActionId>> {
        let untried: Vec<ActionId> = legal.iter().copied().filter(|&a| tree.child(node, a).is_none()).collect();
        if !untried.is_empty() {
            return Err(untried);
        }
        let mut best = (f64::MIN, NONE);
        for &a in legal {
            let id = tree.child(node, a).unwrap();
            let n = &mut tree.nodes[id as usize];
            n.available += 1;
            let ucb = n.mean + c * exploration(tables(), n.available, n.visits);
            if ucb > best.0 {
                best = (ucb, id);
            }
        }
        Ok(best.1)
    }

    /// Marking the children by id selects as the plain reading does, in the legal list's
    /// order: nodes of every size, one call after another on the same marks (stale marks of
    /// other nodes are not children), ids too large to mark, untried actions before and after
    /// the children; and the availabilities it counts are the same.
    #[test]
    fn selecting_by_marks_is_the_plain_reading() {
        use rand::{RngExt, SeedableRng};
        let mut rng = engine::core::SmallRng::seed_from_u64(5);
        let mut offer = Offer::default();
        for round in 0..3 {
            let ((mut tree, parents), (mut plain, _)) = (tree_of_every_size(round), tree_of_every_size(round));
            for _ in 0..6 {
                for (parent, ids) in &parents {
                    // Legal: most children and at times some untried, in an order of their own.
                    let mut legal: Vec<ActionId> =
                        tree.children(*parent).iter().map(|c| c.0).filter(|_| rng.random_bool(0.8)).collect();
                    if rng.random_bool(0.5) || legal.is_empty() {
                        legal.extend(ids.iter().copied().filter(|_| rng.random_bool(0.01)).take(3));
                        legal.push(ids[0]);
                    }
                    rand::seq::SliceRandom::shuffle(&mut legal[..], &mut rng);
                    let got = tree.select(*parent, &legal, 0.7, &mut offer).ok_or_else(|| offer.untried.clone());
                    assert_eq!(got, plain_select(&mut plain, *parent, &legal, 0.7), "round {round}, node {parent}");
                }
            }
            let counts = |t: &Tree| t.nodes.iter().map(|n| (n.action, n.available)).collect::<Vec<_>>();
            assert_eq!(counts(&tree), counts(&plain));
        }
    }

    /// The root, its children kept beside its legal actions, selects as any node does (with
    /// its actions in id order); a root kept from an earlier search finds the children it has.
    #[test]
    fn the_root_selects_as_any_node_does() {
        let (mut tree, mut plain) = (Tree::new(16), Tree::new(16));
        let legal = [9, 2, 7, 4];
        let mut offer = Offer::default();
        for a in [7, 2] {
            assert_eq!(tree.select_root(&legal, 0.7, &mut offer), None);
            tree.add_child(0, a, 0);
            plain.add_child(0, a, 0);
        }
        assert_eq!(tree.select_root(&legal, 0.7, &mut offer), None);
        assert_eq!(offer.untried, [4, 9], "in id order");
        for a in [4, 9] {
            tree.add_child(0, a, 0);
            plain.add_child(0, a, 0);
        }
        for (k, r) in [0.5, 0.25, 1.0, 0.0].into_iter().enumerate() {
            let id = tree.child(0, legal[k]).unwrap();
            tree.backpropagate(&[id], &[r]);
            plain.backpropagate(&[id], &[r]);
        }
        for _ in 0..3 {
            let got = tree.select_root(&legal, 0.7, &mut offer);
            assert_eq!(got.ok_or(vec![]), plain_select(&mut plain, 0, &[2, 4, 7, 9], 0.7));
            tree.backpropagate(&[got.unwrap()], &[0.0]);
            plain.backpropagate(&[got.unwrap()], &[0.0]);
        }
        let mut kept = tree.subtree(0, 16, 16).unwrap();
        let (a, b) =
            (kept.select_root(&legal, 0.7, &mut offer).unwrap(), tree.select_root(&legal, 0.7, &mut offer).unwrap());
        assert_eq!(kept.nodes[a as usize].action, tree.nodes[b as usize].action);
    }

    #[test]
    fn a_node_keeps_the_mean_of_its_rewards() {
        let mut tree = Tree::new(4);
        let child = tree.add_child(0, 3, 1);
        let rewards = [[0.0, 1.0], [0.0, 0.25], [1.0, 0.5]];
        for r in &rewards {
            tree.backpropagate(&[0, child], r);
        }
        let stats = tree.children(0);
        assert_eq!(stats.len(), 1);
        let (action, visits, total) = stats[0];
        assert_eq!((action, visits), (3, 3));
        assert!((total - 1.75).abs() < 1e-12, "the seat that chose it: 1 + 0.25 + 0.5, got {total}");
    }

    /// Children added in any order, to nodes growing side by side (so that their blocks move
    /// past each other), are found by their actions and listed in action order.
    #[test]
    fn children_outgrowing_their_blocks_are_kept_in_order() {
        use rand::{RngExt, SeedableRng};
        let mut rng = engine::core::SmallRng::seed_from_u64(9);
        let mut tree = Tree::new(4);
        let first = tree.add_child(0, 1, 0);
        let parents = [first, tree.add_child(0, 2, 0)];
        // Actions below the first; actions and observation keys below the second.
        let mut added: [Vec<(ActionId, u32)>; 2] = Default::default();
        for _ in 0..600 {
            let k = rng.random_range(0..3);
            let (p, key): (usize, ActionId) = (k.min(1), rng.random_range(10..100_000));
            if tree.child(parents[p], key).is_some() {
                continue;
            }
            let child = if k == 2 { tree.outcome(parents[p], key) } else { tree.add_child(parents[p], key, 0) };
            added[p].push((key, child));
        }
        for (k, mut want) in added.into_iter().enumerate() {
            for &(key, child) in &want {
                assert_eq!(tree.child(parents[k], key), Some(child));
            }
            want.sort_unstable();
            let got: Vec<(ActionId, u32)> = tree.edges_of(parents[k]).iter().map(|e| (e.action, e.child)).collect();
            assert_eq!(got, want, "parent {k}: every child, in action order");
            assert_eq!(tree.children(parents[k]).len(), want.len());
            assert_eq!(tree.child(parents[k], 5), None);
        }
        let sub = tree.subtree(parents[0], 8, usize::MAX).expect("no bound");
        assert_eq!(sub.children(0), tree.children(parents[0]));
    }

    /// A subtree keeps the nodes below its new root, their statistics and their order, and
    /// no more than it is allowed.
    #[test]
    fn a_subtree_is_the_tree_below_its_root() {
        let mut tree = Tree::new(16);
        let a = tree.add_child(0, 5, 0);
        let b = tree.add_child(0, 6, 0);
        let (a1, a2) = (tree.add_child(a, 2, 0), tree.add_child(a, 1, 0));
        let a21 = tree.add_child(a2, 8, 0);
        tree.add_child(b, 3, 0);
        for path in [[0, a, a1, a1], [0, a, a2, a21], [0, a, a2, a2]] {
            tree.backpropagate(&path[..if path[2] == path[3] { 3 } else { 4 }], &[1.0]);
        }
        let sub = tree.subtree(a, 8, 8).expect("room enough");
        assert_eq!(sub.nodes.len(), 4, "a, a1, a2, a21");
        assert_eq!(sub.nodes[0].visits, 3);
        assert_eq!(sub.children(0), tree.children(a));
        let sub_a2 = sub.child(0, 1).unwrap();
        assert_eq!(sub.children(sub_a2), tree.children(a2));
        assert!(tree.subtree(a, 8, 3).is_none(), "four nodes do not fit in three");
    }
}
