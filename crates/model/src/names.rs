//! Kernel names for people: demangled, then shortened for tables and charts.
//!
//! ncu prints demangled names by default (`void cutlass::Kernel2<...>(T1::
//! Params)`), mangled ones with `--print-kernel-base mangled` (`_Z6vecaddPKfS0_Pfi`).
//! Either way the full name stays in the JSON (`Kernel::name`) and its hash
//! is the stable short ID; the display name drops the return type, the
//! parameter list and the template arguments, which are what makes
//! library kernel names hundreds of characters long.
//!
//! Template kernels instantiated several times (BabelStream's
//! `for_each_kernel` per lambda, PyTorch's `vectorized_elementwise_kernel`
//! per functor) would all fold to the same `name<…>`: [`display_names`]
//! keeps, for each, the shortest part of its template arguments that no
//! sibling shares (the functor, or the function that owns a lambda), so that
//! no two different kernels share a display name.

use std::collections::HashMap;

// Tests only: characters the scans below have read, on this thread, so
// that a test can bound the work a name costs (see
// `tests::work_is_linear_in_the_name`).
#[cfg(test)]
thread_local! {
    static SCANNED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

#[inline]
fn scanning(_s: &str) {
    #[cfg(test)]
    SCANNED.with(|c| c.set(c.get() + _s.len() as u64));
}

/// Whether `c` is a bidirectional formatting character (embeddings and
/// overrides U+202A-202E, isolates U+2066-2069, the marks U+200E, U+200F
/// and U+061C): invisible, they reorder the text around them, so that a
/// kernel name could visually rewrite its row. Wherever names are escaped
/// (the terminal, Markdown, messages) these are escaped with the control
/// characters.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Demangles an Itanium C++ name (`_Z...`); other names are returned as is.
pub fn demangle(name: &str) -> String {
    let name = name.trim();
    if name.starts_with("_Z") {
        if let Ok(sym) = cpp_demangle::Symbol::new(name) {
            if let Ok(text) = sym.demangle() {
                // Nsight Compute's spelling of an anonymous namespace, so
                // that a name reads alike from a capture and from a timeline
                // (and its parentheses are not taken for a parameter list).
                return text.replace("(anonymous namespace)", "<unnamed>");
            }
        }
    }
    name.to_string()
}

/// Template arguments this short (in their short form) are shown whole.
pub const SHORT_ARGS_MAX: usize = 12;

/// The most a display name runs to before it is cut with an ellipsis.
pub const DISPLAY_MAX: usize = 64;

/// A short name for display: no return type, no parameters, template
/// arguments folded to `<…>`, cut at [`DISPLAY_MAX`] characters.
pub fn display_name(name: &str) -> String {
    scanning(name);
    let full = without_anonymous(&demangle(name));
    let s = without_parameters(&full);
    // Fold template arguments.
    let mut out = String::with_capacity(s.len());
    let mut depth = 0i32;
    for c in s.chars() {
        match c {
            '<' => {
                if depth == 0 {
                    out.push_str("<…>");
                }
                depth += 1;
            }
            '>' => depth = (depth - 1).max(0),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    // The return type: everything before the last top-level space.
    let trimmed = out.trim();
    let short = match trimmed.rfind(' ') {
        Some(i) if !trimmed[i + 1..].is_empty() => &trimmed[i + 1..],
        _ => trimmed,
    };
    let short = if short.is_empty() { full.trim() } else { short };
    cut_middle(short, DISPLAY_MAX)
}

/// `s` in at most `max` characters: a longer one keeps its head and its
/// tail with an ellipsis between, since library kernels differ at their end
/// (`..._128x128_tn_align1`, `..._bias_NNT`) more often than at their start.
///
/// A template sibling's name (`base<label>`, as [`display_names`] makes them)
/// keeps its label whole where it can, the base giving way first.
pub fn cut_middle(s: &str, max: usize) -> String {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= max {
        return s.to_string();
    }
    if let (Some(open), Some('>')) = (chars.iter().position(|&c| c == '<'), chars.last()) {
        let (base, label) = (&chars[..open], &chars[open + 1..chars.len() - 1]);
        let base_min = base.len().min(8);
        if open > 0 && max >= base_min + 2 + 6 {
            let label_room = max - 2 - base_min;
            let (base, label) = if label.len() <= label_room {
                (cut_end(base, max - 2 - label.len()), label.iter().collect())
            } else {
                (cut_end(base, base_min), cut_middle(&label.iter().collect::<String>(), label_room))
            };
            return format!("{base}<{label}>");
        }
    }
    let keep = max.saturating_sub(1);
    let tail = keep * 2 / 5;
    let head = keep - tail;
    let mut out: String = chars[..head].iter().collect();
    out.push('…');
    out.extend(&chars[chars.len() - tail..]);
    out
}

/// `s` cut in the middle to `max` characters as [`cut_middle`] cuts it,
/// but keeping at least `tail` characters of its end when the room allows:
/// the end that tells it from a sibling (`..._1x4x1_cga1x1x1_kernel0_0`
/// against `..._4x1x1_cga1x1x1_kernel0_0`), which the default cut may drop.
pub fn cut_middle_keeping(s: &str, max: usize, tail: usize) -> String {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= max {
        return s.to_string();
    }
    let default = cut_middle(s, max);
    let kept = default.chars().rev().take_while(|&c| c != '…').count();
    if tail <= kept || tail + 4 > max {
        return default;
    }
    let head = max - 1 - tail;
    let mut out: String = chars[..head].iter().collect();
    out.push('…');
    out.extend(&chars[chars.len() - tail..]);
    out
}

/// `chars` in at most `max` characters, the last an ellipsis when cut.
fn cut_end(chars: &[char], max: usize) -> String {
    if chars.len() <= max {
        return chars.iter().collect();
    }
    let mut out: String = chars[..max.saturating_sub(1)].iter().collect();
    out.push('…');
    out
}

/// A name without its anonymous namespaces (`at::<unnamed>::f<...>` ->
/// `at::f<...>`): Nsight Compute's `<unnamed>` reads as template arguments
/// to the scans below, and it names nothing a reader can tell apart.
fn without_anonymous(s: &str) -> String {
    s.replace("<unnamed>::", "").replace("(anonymous namespace)::", "")
}

/// Splits `s` at top-level commas (outside `<>`, `()`, `[]`, `{}`).
fn split_top(s: &str) -> Vec<&str> {
    scanning(s);
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = s[start..].trim();
    if !last.is_empty() {
        out.push(last);
    }
    out
}

/// The template arguments of a name: the text inside its first top-level
/// `<...>` (after dropping the return type and parameters), split.
fn template_args(name: &str) -> Vec<String> {
    let Some(open) = top_level(name, '<') else { return Vec::new() };
    let Some(close) = matching(name, open) else { return Vec::new() };
    split_top(&name[open + 1..close]).into_iter().map(str::to_string).collect()
}

/// Index of the first `c` outside parentheses (template brackets count).
fn top_level(s: &str, c: char) -> Option<usize> {
    scanning(s);
    let mut parens = 0i32;
    for (i, ch) in s.char_indices() {
        match ch {
            '(' => parens += 1,
            ')' => parens -= 1,
            _ if ch == c && parens == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

/// The index of the bracket closing the one at `open`.
fn matching(s: &str, open: usize) -> Option<usize> {
    scanning(&s[open..]);
    let mut depth = 0i32;
    for (i, c) in s[open..].char_indices() {
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The last `::` component of a qualified name at the top level, without
/// its template arguments, parameters, `const`, pointers or references.
fn last_component(s: &str) -> String {
    scanning(s);
    let s = s.trim().trim_start_matches("const ").trim_start_matches("struct ").trim_start_matches("class ");
    let mut depth = 0i32;
    let mut start = 0;
    let bytes = s.as_bytes();
    for (i, &c) in bytes.iter().enumerate() {
        match c {
            b'<' | b'(' | b'[' | b'{' => depth += 1,
            b'>' | b')' | b']' | b'}' => depth -= 1,
            b':' if depth == 0 && bytes.get(i + 1) == Some(&b':') => start = i + 2,
            _ => {}
        }
    }
    let tail = &s[start..];
    let end = tail.find(['<', '(', ' ', '*', '&']).unwrap_or(tail.len());
    tail[..end].trim().to_string()
}

/// The owner of a lambda: the function whose body defines it, as the
/// demangler writes it (`CUDAStream<double>::copy()::{lambda(int)#1}` or
/// `...::copy()::[lambda(int) (instance 1)]` -> `copy`), or the member an nvcc extended lambda's tag names
/// (`__nv_dl_tag<void (S<double>::*)(), &S<double>::copy, 1u>` -> `copy`).
fn lambda_owner(arg: &str) -> Option<String> {
    // The tag search below reads it three times over.
    (0..3).for_each(|_| scanning(arg));
    // GNU demanglers write `{lambda(int)#1}`, Nsight Compute's
    // `[lambda(int) (instance 1)]`; only a lambda at this argument's top
    // level names it (one deeper down belongs to an argument of it).
    let parts = components(arg);
    if let Some(k) = parts.iter().position(|p| p.starts_with("{lambda") || p.starts_with("[lambda")) {
        // The owner: the component before the lambda, a function with its
        // parameters; `operator()` stands for its class.
        for p in parts[..k].iter().rev() {
            let name = last_component(p);
            if !name.is_empty() && !name.starts_with("operator") {
                return Some(name);
            }
        }
        return None;
    }
    let tag = ["__nv_dl_tag<", "__nv_hdl_wrapper_t<", "__nv_dl_wrapper_t<"];
    if tag.iter().any(|t| arg.contains(t)) {
        let amp = arg.find('&')?;
        let rest = &arg[amp + 1..];
        let mut depth = 0i32;
        let mut end = rest.len();
        for (i, c) in rest.char_indices() {
            match c {
                '<' | '(' => depth += 1,
                ')' => depth -= 1,
                '>' if depth == 0 => {
                    end = i;
                    break;
                }
                '>' => depth -= 1,
                ',' if depth == 0 => {
                    end = i;
                    break;
                }
                _ => {}
            }
        }
        let name = last_component(&rest[..end]);
        return (!name.is_empty()).then_some(name);
    }
    None
}

/// The `::` components of a qualified name at its top level
/// (`a::B<c::d>::f()` -> `a`, `B<c::d>`, `f()`).
fn components(s: &str) -> Vec<&str> {
    scanning(s);
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'<' | b'(' | b'[' | b'{' => depth += 1,
            b'>' | b')' | b']' | b'}' => depth -= 1,
            b':' if depth == 0 && bytes.get(i + 1) == Some(&b':') => {
                out.push(s[start..i].trim());
                start = i + 2;
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(s[start..].trim());
    out
}

/// How deep the label searches go on a name: each level scans the text
/// below it again, so the depths shrink as the name grows, keeping the
/// work on a long name bounded by a constant times its length (a
/// name nested 2,000 deep once cost its depth cubed). Names of real
/// kernels (CUTLASS, CuTe: a few kB, about ten deep) keep the full depths.
#[derive(Clone, Copy)]
struct Depths {
    /// Into template arguments, for labels ([`candidates`], [`naming_arg`]).
    labels: usize,
    /// First arguments into a short label ([`short_arg_within`]).
    short: usize,
}

/// The product of the two depths for a name of [`LABEL_WORK_FULL`] bytes;
/// inversely proportional to the length for longer ones.
const LABEL_WORK: usize = 64;

/// See [`LABEL_WORK`].
const LABEL_WORK_FULL: usize = 16 << 10;

/// Names up to this many bytes get the full depths.
const FULL_DEPTHS_UP_TO: usize = 2 << 10;

impl Depths {
    fn of(name: &str) -> Depths {
        let full = Depths { labels: LABEL_DEPTH, short: SHORT_ARG_DEPTH };
        if name.len() <= FULL_DEPTHS_UP_TO {
            return full;
        }
        // labels x short <= LABEL_WORK x LABEL_WORK_FULL / len, each at least 2.
        let product = (LABEL_WORK * LABEL_WORK_FULL / name.len()).max(4);
        let short = (product as f64).sqrt().floor().max(2.0) as usize;
        Depths { labels: (product / short).clamp(2, LABEL_DEPTH), short: short.min(SHORT_ARG_DEPTH) }
    }
}

/// How many first arguments deep a short label goes (`A<B<C<…>>>`) at
/// most: real labels stop far sooner.
const SHORT_ARG_DEPTH: usize = 16;

/// How deep into template arguments labels are looked for, at most.
/// CUTLASS and CuTe kernels nest about ten deep.
const LABEL_DEPTH: usize = 48;

/// A short label for one template argument: a lambda's owner, else the
/// argument's own name (namespaces dropped) with its first argument, also
/// short (`at::native::MeanOps<float, float, float, float>` ->
/// `MeanOps<float>`).
/// `depth` first arguments deep at most.
fn short_arg_within(arg: &str, depth: usize) -> String {
    if let Some(owner) = lambda_owner(arg) {
        return owner;
    }
    let base = last_component(arg);
    let first = if depth == 0 { None } else { first_template_arg(arg) };
    match first {
        Some(first) if !base.is_empty() => format!("{base}<{}>", short_arg_within(first, depth - 1)),
        _ if !base.is_empty() => base,
        _ => arg.trim().to_string(),
    }
}

/// The first of [`template_args`], without splitting (or copying) the others.
fn first_template_arg(name: &str) -> Option<&str> {
    let open = top_level(name, '<')?;
    let close = matching(name, open)?;
    split_top(&name[open + 1..close]).into_iter().next()
}

/// Labels for a name's template arguments, depth first: each argument's
/// short label, then its own arguments'. Lambda owners come first: they name
/// the code that was written, where a functor's wrapper does not.
fn candidates(name: &str) -> Vec<String> {
    /// A list without repeats, each insertion a look-up (a name with
    /// thousands of arguments must not cost their square).
    #[derive(Default)]
    struct Unique {
        list: Vec<String>,
        seen: std::collections::HashSet<String>,
    }
    impl Unique {
        fn push(&mut self, s: String) {
            if self.seen.insert(s.clone()) {
                self.list.push(s);
            }
        }
    }
    fn walk(arg: &str, depth: usize, d: Depths, owners: &mut Unique, out: &mut Unique) {
        if let Some(owner) = lambda_owner(arg) {
            owners.push(owner);
            return;
        }
        let label = short_arg_within(arg, d.short);
        if !label.is_empty() {
            out.push(label);
        }
        if depth == 0 {
            return;
        }
        for a in template_args(arg) {
            walk(&a, depth - 1, d, owners, out);
        }
    }
    let mut owners = Unique::default();
    let mut out = Unique::default();
    let stripped = strip_signature(name);
    let d = Depths::of(&stripped);
    for a in template_args(&stripped) {
        walk(&a, d.labels, d, &mut owners, &mut out);
    }
    let mut all: Vec<String> = owners.list.into_iter().filter(|o| !out.seen.contains(o)).collect();
    all.extend(out.list);
    all
}

/// The template argument that names the code a kernel runs, for a kernel
/// whose arguments are too long to show: the lambda's owner, else the
/// innermost class template outside `std` (`BinaryFunctor<float, float,
/// float, MulFunctor<float>>` -> `MulFunctor<float>`; `ReduceOp<float,
/// MeanOps<...>>` -> `MeanOps<float>`). Plain numbers, types without
/// arguments (`c10::BFloat16`) and `std::` containers name no code.
fn naming_arg(name: &str) -> Option<String> {
    struct Found {
        owner: Option<String>,
        innermost: Option<String>,
        /// The last qualified class without arguments that is not a number
        /// type (`native::ReduceAdd`): a functor, when no template names one.
        plain: Option<String>,
    }
    fn walk(arg: &str, depth: usize, d: Depths, found: &mut Found) {
        if let Some(o) = lambda_owner(arg) {
            found.owner.get_or_insert(o);
            return;
        }
        let args = template_args(arg);
        let t = arg.trim();
        let std = t.starts_with("std::") || t.starts_with("cuda::std::");
        if !args.is_empty() && !std {
            found.innermost = Some(short_arg_within(arg, d.short));
        } else if args.is_empty() && !std && t.contains("::") && !t.contains('(') {
            let base = last_component(t);
            let lower = base.to_ascii_lowercase();
            let number = ["float", "half", "int", "bool", "complex", "double", "tf32", "fp8", "e4m3", "e5m2"];
            if !base.is_empty() && !number.iter().any(|n| lower.contains(n)) {
                found.plain = Some(base);
            }
        }
        if depth == 0 {
            return;
        }
        for a in args {
            walk(&a, depth - 1, d, found);
        }
    }
    let mut found = Found { owner: None, innermost: None, plain: None };
    let stripped = strip_signature(name);
    let d = Depths::of(&stripped);
    for a in template_args(&stripped) {
        walk(&a, d.labels, d, &mut found);
    }
    found.owner.or(found.innermost).or(found.plain)
}

/// A name up to its parameter list: the first `(` outside template brackets.
fn without_parameters(s: &str) -> &str {
    scanning(s);
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            '(' if depth == 0 => return &s[..i],
            _ => {}
        }
    }
    s
}

/// A demangled name without its return type and parameter list.
fn strip_signature(name: &str) -> String {
    scanning(name);
    let full = without_anonymous(&demangle(name));
    let s = without_parameters(&full).trim();
    // The return type: everything before the last top-level space.
    let mut depth = 0i32;
    let mut last_space = None;
    for (i, c) in s.char_indices() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ' ' if depth == 0 => last_space = Some(i),
            _ => {}
        }
    }
    match last_space {
        Some(i) => s[i + 1..].to_string(),
        None => s.to_string(),
    }
}

/// A sibling's display name: the base without namespaces (siblings share
/// them) and the label that sets it apart, cut at [`DISPLAY_MAX`]
/// characters with an ellipsis.
fn labelled(base: &str, label: &str) -> String {
    cut_middle(&format!("{}<{label}>", last_component(base)), DISPLAY_MAX)
}

/// `std::` function objects that are the operation of a kernel they
/// instantiate (PyTorch's foreach kernels take `std::plus<float>`).
const STD_OPS: [&str; 20] = [
    "plus",
    "minus",
    "multiplies",
    "divides",
    "modulus",
    "negate",
    "equal_to",
    "not_equal_to",
    "greater",
    "less",
    "greater_equal",
    "less_equal",
    "logical_and",
    "logical_or",
    "logical_not",
    "bit_and",
    "bit_or",
    "bit_xor",
    "bit_not",
    "identity",
];

/// For a kernel that takes a functor and the operation it applies as two
/// template arguments (PyTorch's `multi_tensor_apply_kernel<TensorListMetadata<2>,
/// BinaryOpScalarFunctor<float, 1, 1, 0>, std::multiplies<float>, float>`,
/// the foreach optimizer kernels), both names: `BinaryOpScalarFunctor, multiplies`.
/// The operation is the part siblings differ in; the functor says how it
/// is applied (to a scalar, a list, a pointwise pair).
fn functor_and_op(name: &str) -> Option<String> {
    let stripped = strip_signature(name);
    let args = template_args(&stripped);
    let bases: Vec<(String, bool)> = args
        .iter()
        .map(|a| {
            let t = a.trim();
            let base = last_component(t);
            let std_op = (t.starts_with("std::") || t.starts_with("cuda::std::")) && STD_OPS.contains(&base.as_str());
            (base, std_op)
        })
        .collect();
    let functor = bases.iter().position(|(b, op)| !op && b.ends_with("Functor"))?;
    // The operation: the next argument that names a class (`float` does not).
    // The operation: the argument right after the functor, a `std::` one
    // or a class template of its own (`Sqrt<float>`, `LerpFunctor<float>`).
    let op = functor + 1;
    let t = args.get(op)?.trim();
    let class_template = t.contains('<') && !t.starts_with("std::") && !t.starts_with("cuda::std::");
    if !bases[op].1 && !class_template {
        return None;
    }
    Some(format!("{}, {}", bases[functor].0, bases[op].0))
}

/// Display names for a set of kernel names (ncu's, demangled or not), in
/// the same order. Equal names get equal display names; different names
/// never do: a template instantiated more than once keeps the shortest part
/// of its arguments that no sibling shares, and where nothing separates two
/// names (or a cut at [`DISPLAY_MAX`] merges them) the stable short ID of the
/// full name is appended.
pub fn display_names(names: &[&str]) -> Vec<String> {
    let mut distinct: Vec<&str> = names.to_vec();
    distinct.sort();
    distinct.dedup();
    let default: Vec<String> = distinct.iter().map(|n| display_name(n)).collect();
    // Short template arguments are shown whole (`dot_kernel<double>`).
    let mut chosen: Vec<String> = distinct
        .iter()
        .zip(&default)
        .map(|(n, d)| {
            let stripped = strip_signature(n);
            let short = Depths::of(&stripped).short;
            let args: Vec<String> = template_args(&stripped).iter().map(|a| short_arg_within(a, short)).collect();
            let whole = args.join(", ");
            if !d.ends_with("<…>") || args.is_empty() {
                d.clone()
            } else if whole.chars().count() <= SHORT_ARGS_MAX {
                format!("{}<{whole}>", d.trim_end_matches("<…>"))
            } else if let Some(code) = functor_and_op(n).or_else(|| naming_arg(n)) {
                let base = &stripped[..top_level(&stripped, '<').unwrap_or(stripped.len())];
                labelled(base, &code)
            } else {
                d.clone()
            }
        })
        .collect();
    // Siblings share a default display name. Each name's candidates are
    // computed once, and per group of siblings counted (how many members
    // offer a label, and a label at a position), so that a label's
    // uniqueness is a look-up: the work grows with the names, not with
    // their square (100,000 kernels of one template family).
    let mut groups: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, d) in default.iter().enumerate() {
        groups.entry(d.as_str()).or_default().push(i);
    }
    for members in groups.values().filter(|m| m.len() > 1) {
        let cands: Vec<Vec<String>> = members.iter().map(|&i| candidates(distinct[i])).collect();

        // Per label, the members that offer it (each member once); per
        // (position, label), the members with that label there.
        let mut offered: HashMap<&str, usize> = HashMap::new();
        let mut at: HashMap<(usize, &str), usize> = HashMap::new();
        for c in &cands {
            let mut seen: Vec<&str> = c.iter().map(String::as_str).collect();
            seen.sort_unstable();
            seen.dedup();
            for l in seen {
                *offered.entry(l).or_default() += 1;
            }
            for (p, l) in c.iter().enumerate() {
                *at.entry((p, l.as_str())).or_default() += 1;
            }
        }
        for (m, &i) in members.iter().enumerate() {
            let name = distinct[i];
            if template_args(&strip_signature(name)).is_empty() {
                continue;
            }
            let mine = &cands[m];
            let mine_set: std::collections::HashSet<&str> = mine.iter().map(String::as_str).collect();
            // Offered by no sibling: by nobody but this kernel, if by it.
            let unique = |c: &String| {
                let own = usize::from(mine_set.contains(c.as_str()));
                offered.get(c.as_str()).copied().unwrap_or(0) == own
            };
            // What names the code (the innermost functor or lambda owner) first,
            // then any argument that names a class, then numbers and plain types.
            // A functor and its operation name it even when a sibling has
            // both (the ID then tells the two apart, below).
            let label = functor_and_op(name)
                .or_else(|| naming_arg(name).filter(|c| unique(c)))
                .or_else(|| mine.iter().filter(|c| c.contains('<')).find(|c| unique(c)).cloned())
                .or_else(|| mine.iter().find(|c| unique(c)).cloned())
                .or_else(|| {
                    // No single label is unique to this kernel: the first position
                    // where it differs from every sibling.
                    (0..mine.len())
                        .find(|&p| at.get(&(p, mine[p].as_str())).copied() == Some(1))
                        .map(|p| mine[p].clone())
                });
            if let Some(l) = label {
                let stripped = strip_signature(name);
                let base = &stripped[..top_level(&stripped, '<').unwrap_or(stripped.len())];
                chosen[i] = labelled(base, &l);
            }
        }
    }
    // Whatever still collides gets the ID of its full name, in order: a
    // name collides when another holds its display name at that moment
    // (the last of a colliding set is then already apart and keeps it).
    let mut holders: HashMap<String, usize> = HashMap::new();
    for c in &chosen {
        *holders.entry(c.clone()).or_default() += 1;
    }
    for i in 0..distinct.len() {
        if holders.get(&chosen[i]).copied().unwrap_or(0) > 1 {
            let renamed = format!("{} [{}]", chosen[i], crate::kernel::short_id(distinct[i]));
            if let Some(n) = holders.get_mut(&chosen[i]) {
                *n -= 1;
            }
            *holders.entry(renamed.clone()).or_default() += 1;
            chosen[i] = renamed;
        }
    }
    names.iter().map(|n| chosen[distinct.binary_search(n).expect("every name is in the set")].clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_c_names_stay() {
        assert_eq!(display_name("vecadd"), "vecadd");
        assert_eq!(demangle("vecadd"), "vecadd");
    }

    #[test]
    fn mangled_names_are_demangled() {
        assert_eq!(demangle("_Z6vecaddPKfS0_Pfi"), "vecadd(float const*, float const*, float*, int)");
        assert_eq!(display_name("_Z6vecaddPKfS0_Pfi"), "vecadd");
    }

    #[test]
    fn library_names_are_shortened() {
        let n = "void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>(T1::Params)";
        assert_eq!(display_name(n), "cutlass::Kernel2<…>");
        let n = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char *, 1>>(int, T2, T3)";
        assert_eq!(display_name(n), "at::native::vectorized_elementwise_kernel<…>");
        assert_eq!(
            display_name("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"),
            "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"
        );
    }

    const BABELSTREAM: [&str; 6] = [
        "void for_each_kernel<__nv_dl_wrapper_t<__nv_dl_tag<void (CUDAStream<double>::*)(), &CUDAStream<double>::copy, 1u>, double const*, double*>>(long, long, __nv_dl_wrapper_t<__nv_dl_tag<void (CUDAStream<double>::*)(), &CUDAStream<double>::copy, 1u>, double const*, double*>)",
        "void for_each_kernel<__nv_dl_wrapper_t<__nv_dl_tag<void (CUDAStream<double>::*)(), &CUDAStream<double>::mul, 1u>, double, double*, double const*>>(long, long, __nv_dl_wrapper_t<__nv_dl_tag<void (CUDAStream<double>::*)(), &CUDAStream<double>::mul, 1u>, double, double*, double const*>)",
        "void for_each_kernel<__nv_dl_wrapper_t<__nv_dl_tag<void (CUDAStream<double>::*)(), &CUDAStream<double>::add, 1u>, double const*, double const*, double*>>(long, long, __nv_dl_wrapper_t<__nv_dl_tag<void (CUDAStream<double>::*)(), &CUDAStream<double>::add, 1u>, double const*, double const*, double*>)",
        "void for_each_kernel<__nv_dl_wrapper_t<__nv_dl_tag<void (CUDAStream<double>::*)(), &CUDAStream<double>::triad, 1u>, double*, double const*, double const*, double>>(long, long, __nv_dl_wrapper_t<__nv_dl_tag<void (CUDAStream<double>::*)(), &CUDAStream<double>::triad, 1u>, double*, double const*, double const*, double>)",
        "void for_each_kernel<__nv_dl_wrapper_t<__nv_dl_tag<void (CUDAStream<double>::*)(double, double, double), &CUDAStream<double>::init_arrays, 1u>, double*, double*, double*, double, double, double>>(long, long, __nv_dl_wrapper_t<__nv_dl_tag<void (CUDAStream<double>::*)(double, double, double), &CUDAStream<double>::init_arrays, 1u>, double*, double*, double*, double, double, double>)",
        "void dot_kernel<double>(double const*, double const*, double*, int)",
    ];

    #[test]
    fn babelstream_kernels_get_six_names() {
        let d = display_names(&BABELSTREAM);
        assert_eq!(
            d,
            [
                "for_each_kernel<copy>",
                "for_each_kernel<mul>",
                "for_each_kernel<add>",
                "for_each_kernel<triad>",
                "for_each_kernel<init_arrays>",
                "dot_kernel<double>"
            ]
        );
    }

    #[test]
    fn lambdas_are_named_by_the_function_that_owns_them() {
        let names = [
            "void for_each_kernel<CUDAStream<double>::copy()::{lambda(long)#1}>(long, long, CUDAStream<double>::copy()::{lambda(long)#1})",
            "void for_each_kernel<CUDAStream<double>::mul()::{lambda(long)#1}>(long, long, CUDAStream<double>::mul()::{lambda(long)#1})",
        ];
        assert_eq!(display_names(&names), ["for_each_kernel<copy>", "for_each_kernel<mul>"]);
    }

    const PYTORCH: [&str; 4] = [
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char *, 3>>(int, T2, T3)",
        "void at::native::vectorized_elementwise_kernel<4, at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda(c10::BFloat16) (instance 1)], std::array<char *, 2>>(int, T2, T3)",
        "void at::native::vectorized_elementwise_kernel<4, at::native::AbsFunctor<c10::BFloat16>, std::array<char *, 2>>(int, T2, T3)",
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char *, 3>>(int, T2, T3)",
    ];

    #[test]
    fn a_mangled_name_in_an_anonymous_namespace_keeps_its_kernel_name() {
        // PyTorch's layer norm as CUPTI gives it (mangled): the display name
        // was "at::native::" when "(anonymous namespace)" read as parameters.
        let n = "_ZN2at6native53_GLOBAL__N__21739cd4_20_layer_norm_kernel_cu_9c5ada8a28vectorized_layer_norm_kernelIffLb0EEEviT0_PKT_S6_S6_PS3_S7_PS4_";
        let d = display_names(&[n]);
        assert!(d[0].contains("vectorized_layer_norm_kernel"), "{d:?}");
        assert!(
            demangle(n).contains("<unnamed>::vectorized_layer_norm_kernel<float, float, false>"),
            "{}",
            demangle(n)
        );
    }

    #[test]
    fn a_vector_width_never_names_a_kernel_when_a_functor_does() {
        // Two instantiations that differ in their vector width and their
        // functor (inside a wrapper): the functor names them, not `<4>`/`<2>`.
        let mul = "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float>>, std::array<char *, 3>>(int, T2, T3)";
        let fill = "void at::native::vectorized_elementwise_kernel<2, at::native::FillFunctor<long>, std::array<char *, 1>>(int, T2, T3)";
        let d = display_names(&[mul, fill]);
        assert_eq!(
            d,
            ["vectorized_elementwise_kernel<MulFunctor<float>>", "vectorized_elementwise_kernel<FillFunctor<long>>"]
        );
        // Alone in its capture, a kernel is still named by its functor.
        assert_eq!(display_names(&[mul]), ["vectorized_elementwise_kernel<MulFunctor<float>>"]);
    }

    #[test]
    fn pytorch_elementwise_kernels_are_told_apart_by_their_functor() {
        let d = display_names(&PYTORCH);
        assert_eq!(d[0], "vectorized_elementwise_kernel<CUDAFunctor_add<BFloat16>>");
        assert_eq!(d[2], "vectorized_elementwise_kernel<AbsFunctor<BFloat16>>");
        assert_eq!(d[3], "vectorized_elementwise_kernel<CUDAFunctor_add<float>>");
        assert_eq!(d[1], "vectorized_elementwise_kernel<bfloat16_copy_kernel_cuda>");
        let mut unique = d.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 4, "{d:?}");
    }

    #[test]
    fn reduce_kernels_keep_the_reduction() {
        let names = [
            "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4, 4>>(T3)",
            "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator ()(at::TensorIterator &)::[lambda(float, float) (instance 1)]>, unsigned int, float, 4, 4>>(T3)",
        ];
        let d = display_names(&names);
        assert_eq!(d[0], "reduce_kernel<MeanOps<float>>");
        assert_eq!(d[1], "reduce_kernel<sum_functor>");
    }

    #[test]
    fn a_cut_keeps_the_end_asked_for_when_it_fits() {
        let a = "cudnn_generated_fort_native_sdpa_sm90_…_1x4x1_cga1x1x1_kernel0_0";
        // The default cut keeps 13 characters of the end: the two siblings' cuts are alike.
        assert_eq!(cut_middle(a, 34), "cudnn_generated_fort…1x1_kernel0_0");
        let kept = cut_middle_keeping(a, 34, 24);
        assert_eq!(kept, "cudnn_gen…1x4x1_cga1x1x1_kernel0_0");
        assert_eq!(kept.chars().count(), 34);
        // No room for the end: the default cut; short enough: the name itself.
        assert_eq!(cut_middle_keeping(a, 20, 24), cut_middle(a, 20));
        assert_eq!(cut_middle_keeping("short", 34, 3), "short");
    }

    #[test]
    fn equal_names_share_a_display_name_and_different_ones_never_do() {
        let n = "a".repeat(100);
        let m = format!("{}b{}", "a".repeat(50), "a".repeat(49));
        let names = ["vecadd", "vecadd", n.as_str(), m.as_str()];
        let d = display_names(&names);
        assert_eq!(d[0], d[1]);
        assert_ne!(d[2], d[3], "a cut that merges two names is told apart by the ID");
        assert!(d[2].contains(&crate::kernel::short_id(&n)));
    }

    #[test]
    fn template_arguments_of_up_to_12_characters_are_shown_whole() {
        let names = ["void k<float, float>(float*)", "void j<double, float>(float*)", "void i<c10::Half>(int)"];
        assert_eq!(display_names(&names), ["k<float, float>", "j<…>", "i<Half>"]);
    }

    #[test]
    fn long_names_are_cut_in_the_middle() {
        let n = format!("{}{}", "a".repeat(100), "_tail");
        let d = display_name(&n);
        assert_eq!(d.chars().count(), DISPLAY_MAX);
        assert!(d.contains('…') && d.ends_with("a_tail"), "{d}");
    }

    /// Views (issue 28), item 1: CUTLASS GEMMs that differ in their tile
    /// shape at the end of a long name kept only their common start.
    #[test]
    fn gemms_that_differ_at_the_end_keep_their_tile_shape() {
        let names = [
            "void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align1>(T1::Params)",
            "void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_256x128_nn_align1>(T1::Params)",
        ];
        let d = display_names(&names);
        assert!(d[0].contains("128x128_tn_align1") && d[1].contains("256x128_nn_align1"), "{d:?}");
        assert!(d.iter().all(|n| n.chars().count() <= DISPLAY_MAX), "{d:?}");
    }

    /// A functor in an anonymous namespace, with no arguments of its own
    /// (`native::<unnamed>::ReduceAdd`), still names its kernel.
    #[test]
    fn a_plain_functor_names_its_kernel() {
        let n = "void at::native::indexFuncLargeIndex<float, long, unsigned int, 2, 2, (int)-2, 1, at::native::<unnamed>::ReduceAdd>(cuda::TensorInfo<T1, T3>, int, T1)";
        assert_eq!(display_names(&[n]), ["indexFuncLargeIndex<ReduceAdd>"]);
        // A number type is no functor.
        let m = "void k<float, c10::BFloat16, 4, 4, 4>(int)";
        assert_eq!(display_names(&[m]), ["k<…>"]);
    }

    /// Views (issue 28), item 1: PyTorch's foreach optimizer kernels (as
    /// Nsight Compute prints them, in an anonymous namespace) showed hash
    /// IDs only; their operation is what tells them apart.
    #[test]
    fn foreach_kernels_are_named_by_their_functor_and_operation() {
        let k = |args: &str| format!("void at::<unnamed>::multi_tensor_apply_kernel<{args}>(T1, T2, T3...)");
        let names = [
            k("at::<unnamed>::TensorListMetadata<1>, at::<unnamed>::BinaryOpScalarFunctor<float, 1, 1, 0>, std::multiplies<float>, float"),
            k("at::<unnamed>::TensorListScalarListMetadata<float, 3>, at::<unnamed>::PointwiseOpScalarListFunctor<float, 3, 3, 0>, std::divides<float>"),
            k("at::<unnamed>::TensorListScalarListMetadata<float, 1>, at::<unnamed>::BinaryOpScalarListFunctor<float, 1, 1, 0>, std::divides<float>"),
            k("at::<unnamed>::TensorListMetadata<3>, at::<unnamed>::PointwiseOpScalarFunctor<float, 3, 3, 0>, std::multiplies<float>, float"),
            k("at::<unnamed>::TensorListMetadata<2>, at::<unnamed>::UnaryOpFunctor<float, 2, 1, 1>, at::<unnamed>::Sqrt<float>"),
            k("at::<unnamed>::TensorListMetadata<2>, at::<unnamed>::TernaryOpScalarFunctor<float, 2, 2, 0>, at::<unnamed>::LerpFunctor<float>, float"),
            k("at::<unnamed>::TensorListMetadata<1>, at::<unnamed>::BinaryOpScalarFunctor<float, 1, 1, 0>, std::plus<float>, float"),
        ];
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let d = display_names(&refs);
        assert_eq!(
            d,
            [
                "multi_tensor_apply_kernel<BinaryOpScalarFunctor, multiplies>",
                "multi_tensor_apply_kernel<PointwiseOpScalarListFunctor, divides>",
                "multi_tensor_apply_kernel<BinaryOpScalarListFunctor, divides>",
                "multi_tensor_apply_kernel<PointwiseOpScalarFunctor, multiplies>",
                "multi_tensor_apply_kernel<UnaryOpFunctor, Sqrt>",
                "multi_tensor_apply_kernel<TernaryOpScalarFunctor, LerpFunctor>",
                "multi_tensor_apply_kernel<BinaryOpScalarFunctor, plus>",
            ]
        );
        // Alone, one is named alike.
        assert_eq!(display_names(&refs[..1]), ["multi_tensor_apply_kernel<BinaryOpScalarFunctor, multiplies>"]);
    }

    /// Characters scanned while `f` runs.
    fn work(f: impl FnOnce()) -> u64 {
        SCANNED.with(|c| c.set(0));
        f();
        SCANNED.with(|c| c.get())
    }

    /// Work allowed per character of the names (see `LABEL_DEPTH` and
    /// `SHORT_ARG_DEPTH`: each bounded level scans a name's text a few times).
    const WORK_PER_CHAR: u64 = 40_000;

    /// `cute::tuple<cute::tuple<...<cute::C<1>>...>>`, `depth` deep.
    fn nested(depth: usize, leaf: &str) -> String {
        format!("{}{leaf}{}", "cute::tuple<".repeat(depth), ">".repeat(depth))
    }

    /// Hardening (issue 27), item 4: a kernel name nested 2,000 deep (8 kB)
    /// took 44 s to shorten, the work cubic in the depth.
    #[test]
    fn a_name_nested_2000_deep_is_shortened_with_work_linear_in_its_length() {
        let a = format!("void cutlass::device_kernel<{}>(T1::Params)", nested(2000, "cute::C<1>"));
        let b = format!("void cutlass::device_kernel<{}>(T1::Params)", nested(2000, "cute::C<2>"));
        assert!(a.len() > 8000, "{}", a.len());
        let len = (a.len() + b.len()) as u64;
        let t = std::time::Instant::now();
        let mut names = Vec::new();
        let w = work(|| names = display_names(&[&a, &b]));
        assert!(w <= WORK_PER_CHAR * len, "{w} characters scanned for {len}");
        assert_ne!(names[0], names[1], "siblings told apart: {names:?}");
        assert!(names.iter().all(|n| n.chars().count() <= DISPLAY_MAX + 12), "{names:?}");
        assert!(t.elapsed().as_secs() < 10, "took {:?}", t.elapsed());
        // Twice the depth, about twice the work (cubic would be eight times).
        let deeper = format!("void k<{}>()", nested(4000, "int"));
        let shallower = format!("void k<{}>()", nested(2000, "int"));
        let (w2, w1) = (work(|| drop(display_names(&[&deeper, &a]))), work(|| drop(display_names(&[&shallower, &a]))));
        assert!(w2 < 3 * w1, "{w2} vs {w1}");
    }

    /// CUTLASS 3 and CuTe kernels as Nsight Compute prints them: siblings
    /// that differ deep in their template arguments get different short names.
    #[test]
    fn cutlass_and_cute_deep_template_corpus() {
        let shape = |m: u32, n: u32| format!("cute::tuple<cute::C<{m}>, cute::C<{n}>, cute::C<64>>");
        let gemm = |tile: &str, stages: u32| {
            format!(
                "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, \
                 cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized<{stages}, \
                 cute::tuple<cute::C<2>, cute::C<1>, cute::C<1>>, cutlass::gemm::KernelTmaWarpSpecializedCooperative>, \
                 {tile}, cutlass::bfloat16_t, cute::tuple<long, cute::C<1>, long>, cutlass::bfloat16_t, \
                 cute::tuple<long, cute::C<1>, long>, cute::TiledMMA<cute::MMA_Atom<cute::SM90_64x128x16_F32BF16BF16_SS<\
                 (cute::GMMA::Major)0, (cute::GMMA::Major)0, (cute::GMMA::ScaleIn)1, (cute::GMMA::ScaleIn)1>>, \
                 cute::Layout<cute::tuple<cute::C<2>, cute::C<1>, cute::C<1>>, cute::tuple<cute::C<1>, cute::C<0>, \
                 cute::C<0>>>, cute::tuple<cute::Underscore, cute::Underscore, cute::Underscore>>, cute::SM90_TMA_LOAD, \
                 cute::ComposedLayout<cute::Swizzle<3, 4, 3>, cute::smem_ptr_flag_bits<16>, cute::Layout<cute::tuple<\
                 cute::C<8>, cute::C<64>>, cute::tuple<cute::C<64>, cute::C<1>>>>, void, cute::identity>, \
                 cutlass::epilogue::collective::DefaultEpilogue<cutlass::epilogue::thread::LinearCombination<\
                 cutlass::bfloat16_t, 1, float, float>>, void, void>>(T1::Params)"
            )
        };
        let corpus = [
            gemm(&shape(128, 128), 4),
            gemm(&shape(128, 256), 4),
            gemm(&shape(128, 128), 5),
            format!("void cute::kernel<{}>(float*)", nested(40, "cute::C<1>")),
            format!("void cute::kernel<{}>(float*)", nested(40, "cute::C<2>")),
            "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::half_t, \
             Flash_kernel_traits<128, 128, 64, 4, cutlass::half_t>>, false, true, false>(Flash_fwd_params)"
                .to_string(),
        ];
        let refs: Vec<&str> = corpus.iter().map(String::as_str).collect();
        let len: u64 = refs.iter().map(|n| n.len() as u64).sum();
        let mut names = Vec::new();
        let w = work(|| names = display_names(&refs));
        assert!(w <= WORK_PER_CHAR * len, "{w} for {len}");
        let mut distinct = names.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), names.len(), "two kernels share a display name: {names:#?}");
        for (n, full) in names.iter().zip(&corpus) {
            assert!(n.chars().count() <= DISPLAY_MAX + 12, "{n}");
            assert!(!n.contains("T1::Params") && !n.starts_with("void"), "{n} from {full}");
        }
        assert!(names[0].starts_with("device_kernel"), "{names:?}");
    }

    /// A template tree for the property below: a name, its arguments.
    fn tree() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just("int".to_string()),
            Just("cute::C<1>".to_string()),
            Just("float".to_string()),
            Just("S<double>::copy()::{lambda(int)#1}".to_string()),
            "[a-z]{1,6}".prop_map(|s| format!("ns::{s}")),
        ];
        leaf.prop_recursive(24, 600, 4, |inner| {
            (
                prop_oneof![Just("cute::tuple"), Just("cutlass::Kernel"), Just("std::array"), Just("Op")],
                proptest::collection::vec(inner, 1..4),
            )
                .prop_map(|(name, args)| format!("{name}<{}>", args.join(", ")))
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(32))]
        /// Hardening (issue 27), item 4: whatever the nesting's shape (deep,
        /// wide, lambdas inside), the work on names is bounded by their length.
        #[test]
        fn work_is_linear_in_the_name(a in tree(), b in tree(), chain in 0usize..1500) {
            let a = format!("void kernel<{a}>(int)");
            let b = format!("void kernel<{}>(int)", nested(chain, &b));
            let len = (a.len() + b.len()) as u64;
            let w = work(|| drop(display_names(&[&a, &b])));
            proptest::prop_assert!(w <= WORK_PER_CHAR * len, "{} characters scanned for {}", w, len);
        }
    }
}
