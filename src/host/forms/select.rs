//! The `select`, `option` and `optgroup` elements: the list of options, selectedness and
//! dirtiness, the selectedness setting algorithm, and the setters script uses.
//!
//! <https://html.spec.whatwg.org/multipage/form-elements.html#the-select-element>
//!
//! The list of options is every `option` descendant of the `select` that is not inside
//! another `select`, a `datalist` or an `option` on the way: the customizable `select` that
//! Chromium ships (and the HTML parser now builds) lets options sit inside other elements,
//! where the older text counted only option children and the children of optgroup children.

use super::super::keys::NodeKey;
use super::super::seam::Upper;
use super::super::{Host, HostState};
use super::microsyntax::{parse_non_negative_integer, strip_and_collapse_ascii_whitespace};
use super::Control;

/// Reading selects and options.
impl<U: Upper> HostState<U> {
    /// <https://html.spec.whatwg.org/multipage/form-elements.html#concept-select-option-list>
    pub fn list_of_options(&self, select: NodeKey) -> Vec<NodeKey> {
        if !self.is_html(select, "select") {
            return Vec::new();
        }
        self.descendants(select)
            .into_iter()
            .filter(|o| self.is_html(*o, "option") && self.owning_select(*o) == Some(select))
            .collect()
    }

    /// The `select` whose list of options an `option` (or whose options an `optgroup`)
    /// belongs to.
    pub fn owning_select(&self, node: NodeKey) -> Option<NodeKey> {
        for a in self.ancestors(node) {
            match self.html_name(a) {
                Some("select") => return Some(a),
                Some("datalist" | "option") => return None,
                _ => {}
            }
        }
        None
    }

    /// <https://html.spec.whatwg.org/multipage/form-elements.html#concept-option-selectedness>
    pub fn selectedness(&self, option: NodeKey) -> bool {
        matches!(
            self.element(option).map(|e| &e.control),
            Some(Control::Option(s)) if s.selectedness
        )
    }

    /// The options of a select's list whose selectedness is true, in tree order
    /// (`selectedOptions`).
    pub fn selected_options(&self, select: NodeKey) -> Vec<NodeKey> {
        self.list_of_options(select)
            .into_iter()
            .filter(|o| self.selectedness(*o))
            .collect()
    }

    /// `selectedIndex`: the index of the first selected option, or -1.
    pub fn selected_index(&self, select: NodeKey) -> i64 {
        self.list_of_options(select)
            .iter()
            .position(|o| self.selectedness(*o))
            .map_or(-1, |i| i as i64)
    }

    /// <https://html.spec.whatwg.org/multipage/form-elements.html#dom-option-text>: the
    /// option's descendant text (without `script` elements' text), stripped and collapsed.
    pub fn option_text(&self, option: NodeKey) -> String {
        let text: String = self
            .inclusive_descendants(option)
            .into_iter()
            .filter(|n| !self.ancestors(*n).any(|a| self.is_html(a, "script")))
            .filter_map(|n| match &self.node(n)?.data {
                super::super::dom::NodeData::Text(t) => Some(t.clone()),
                _ => None,
            })
            .collect();
        strip_and_collapse_ascii_whitespace(&text)
    }

    /// <https://html.spec.whatwg.org/multipage/form-elements.html#concept-option-value>: the
    /// `value` attribute, else the option's text.
    pub fn option_value(&self, option: NodeKey) -> String {
        match self.attribute(option, "value") {
            Some(v) => v.into(),
            None => self.option_text(option),
        }
    }

    /// <https://html.spec.whatwg.org/multipage/form-elements.html#concept-option-label>
    pub fn option_label(&self, option: NodeKey) -> String {
        match self.attribute(option, "label") {
            Some(l) if !l.is_empty() => l.into(),
            _ => self.option_text(option),
        }
    }

    /// <https://html.spec.whatwg.org/multipage/form-elements.html#concept-select-size>
    pub fn display_size(&self, select: NodeKey) -> u64 {
        match self
            .attribute(select, "size")
            .and_then(parse_non_negative_integer)
        {
            Some(n) if n > 0 => n,
            _ if self.has_attribute(select, "multiple") => 4,
            _ => 1,
        }
    }

    /// <https://html.spec.whatwg.org/multipage/form-elements.html#placeholder-label-option>
    pub fn placeholder_label_option(&self, select: NodeKey) -> Option<NodeKey> {
        if !self.has_attribute(select, "required")
            || self.has_attribute(select, "multiple")
            || self.display_size(select) != 1
        {
            return None;
        }
        let first = *self.list_of_options(select).first()?;
        (self.option_value(first).is_empty() && self.parent(first) == Some(select)).then_some(first)
    }
}

/// Changing selectedness.
pub trait Selects: Host {
    /// <https://html.spec.whatwg.org/multipage/form-elements.html#selectedness-setting-algorithm>
    fn selectedness_setting_algorithm(&mut self, select: NodeKey) {
        if !self.is_html(select, "select") || self.has_attribute(select, "multiple") {
            return;
        }
        let options = self.list_of_options(select);
        let selected: Vec<NodeKey> = options
            .iter()
            .copied()
            .filter(|o| self.selectedness(*o))
            .collect();
        // 1. With a display size of 1 and nothing selected, the first option that is not
        //    disabled is selected.
        if selected.is_empty() {
            if self.display_size(select) == 1 {
                if let Some(first) = options.into_iter().find(|o| !self.is_disabled(*o)) {
                    self.put_selectedness(first, true);
                }
            }
            return;
        }
        // 2. Two or more selected: all but the last are unselected.
        for o in &selected[..selected.len() - 1] {
            self.put_selectedness(*o, false);
        }
    }

    /// Sets an option's selectedness (nothing else).
    fn put_selectedness(&mut self, option: NodeKey, selected: bool) {
        if let Some(Control::Option(s)) = self.control_mut(option) {
            s.selectedness = selected;
        }
    }

    /// An option selected in a `select` without `multiple` unselects the others.
    fn unselect_others(&mut self, option: NodeKey) {
        let Some(select) = self.owning_select(option) else {
            return;
        };
        if self.has_attribute(select, "multiple") {
            return;
        }
        for o in self.list_of_options(select) {
            if o != option && self.selectedness(o) {
                self.put_selectedness(o, false);
            }
        }
    }

    /// <https://html.spec.whatwg.org/multipage/form-elements.html#the-option-element>: the
    /// `selected` attribute added or removed sets a clean option's selectedness; the option
    /// then asks for a reset.
    fn option_selected_attribute_changed(&mut self, option: NodeKey) {
        let dirty = matches!(
            self.element(option).map(|e| &e.control),
            Some(Control::Option(s)) if s.dirtiness
        );
        if !dirty {
            let selected = self.has_attribute(option, "selected");
            self.put_selectedness(option, selected);
            if selected {
                self.unselect_others(option);
            }
        }
        if let Some(select) = self.owning_select(option) {
            self.selectedness_setting_algorithm(select);
        }
    }

    /// `option.selected = value`: selectedness set, dirtiness true, then a reset is asked
    /// for.
    ///
    /// <https://html.spec.whatwg.org/multipage/form-elements.html#dom-option-selected>
    fn set_selectedness(&mut self, option: NodeKey, selected: bool) {
        if let Some(Control::Option(s)) = self.control_mut(option) {
            s.selectedness = selected;
            s.dirtiness = true;
        }
        if selected {
            self.unselect_others(option);
        }
        if let Some(select) = self.owning_select(option) {
            self.selectedness_setting_algorithm(select);
        }
    }

    /// `select.value = value`: every option unselected, then the first whose value is
    /// `value` selected (and made dirty).
    ///
    /// <https://html.spec.whatwg.org/multipage/form-elements.html#dom-select-value>
    fn set_select_value(&mut self, select: NodeKey, value: &str) {
        let options = self.list_of_options(select);
        for o in &options {
            self.put_selectedness(*o, false);
        }
        if let Some(o) = options.into_iter().find(|o| self.option_value(*o) == value) {
            if let Some(Control::Option(s)) = self.control_mut(o) {
                s.selectedness = true;
                s.dirtiness = true;
            }
        }
    }

    /// `select.selectedIndex = index`: every option unselected, then the one at `index` (if
    /// any) selected and made dirty.
    fn set_selected_index(&mut self, select: NodeKey, index: i64) {
        let options = self.list_of_options(select);
        for o in &options {
            self.put_selectedness(*o, false);
        }
        if let Some(o) = usize::try_from(index)
            .ok()
            .and_then(|i| options.get(i).copied())
        {
            if let Some(Control::Option(s)) = self.control_mut(o) {
                s.selectedness = true;
                s.dirtiness = true;
            }
        }
    }
}

impl<H: Host> Selects for H {}
