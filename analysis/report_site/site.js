/* alloclab report: sorting and filtering the pages' tables, nothing else.
   Nothing here reads text as HTML: what a table holds is only ever read
   with textContent and attributes, and new text goes in the same way. */
(function () {
	'use strict';

	/* A cell's value for sorting: its data-v number when it has one. */
	function sortValue(td) {
		var v = td ? td.getAttribute('data-v') : null;
		if (v !== null && v !== '') {
			var n = Number(v);
			if (!isNaN(n))
				return { n: n };
		}
		return { s: td ? td.textContent.trim().toLowerCase() : '' };
	}

	function compare(a, b) {
		if (a.n !== undefined && b.n !== undefined)
			return a.n - b.n;
		if (a.n !== undefined)
			return -1; /* numbers before words ("-", "error") */
		if (b.n !== undefined)
			return 1;
		return a.s < b.s ? -1 : a.s > b.s ? 1 : 0;
	}

	function makeSortable(table) {
		var heads = table.tHead ? table.tHead.rows[0].cells : [];
		Array.prototype.forEach.call(heads, function (th, col) {
			th.setAttribute('tabindex', '0');
			function sort() {
				var body = table.tBodies[0];
				var down = th.getAttribute('aria-sort') === 'ascending';
				Array.prototype.forEach.call(heads, function (h) { h.removeAttribute('aria-sort'); });
				th.setAttribute('aria-sort', down ? 'descending' : 'ascending');
				var rows = Array.prototype.slice.call(body.rows);
				var keyed = rows.map(function (r, i) { return { r: r, k: sortValue(r.cells[col]), i: i }; });
				keyed.sort(function (a, b) { return (down ? -1 : 1) * compare(a.k, b.k) || a.i - b.i; });
				keyed.forEach(function (x) { body.appendChild(x.r); });
			}
			th.addEventListener('click', sort);
			th.addEventListener('keydown', function (e) {
				if (e.key === 'Enter' || e.key === ' ') {
					e.preventDefault();
					sort();
				}
			});
		});
	}

	/* The value a cell is filtered by: its data-f, else its text. */
	function filterValue(td) {
		if (!td)
			return '';
		var f = td.getAttribute('data-f');
		return f !== null ? f : td.textContent.trim();
	}

	function makeFilters(table) {
		var heads = table.tHead ? table.tHead.rows[0].cells : [];
		var body = table.tBodies[0];
		var columns = [];
		Array.prototype.forEach.call(heads, function (th, col) {
			if (th.hasAttribute('data-filter'))
				columns.push(col);
		});
		var bar = document.createElement('div');
		bar.className = 'filters';
		var selects = [];
		columns.forEach(function (col) {
			var seen = {}, values = [];
			Array.prototype.forEach.call(body.rows, function (r) {
				var v = filterValue(r.cells[col]);
				if (!Object.prototype.hasOwnProperty.call(seen, v)) {
					seen[v] = true;
					values.push(v);
				}
			});
			if (values.length < 2)
				return;
			values.sort(function (a, b) {
				var x = Number(a), y = Number(b);
				return !isNaN(x) && !isNaN(y) ? x - y : a < b ? -1 : a > b ? 1 : 0;
			});
			var label = document.createElement('label');
			label.appendChild(document.createTextNode(heads[col].textContent.trim()));
			var select = document.createElement('select');
			var all = document.createElement('option');
			all.value = '';
			all.textContent = 'all';
			select.appendChild(all);
			values.forEach(function (v) {
				var o = document.createElement('option');
				o.value = v;
				o.textContent = v === '' ? '(none)' : v;
				select.appendChild(o);
			});
			label.appendChild(select);
			bar.appendChild(label);
			selects.push({ col: col, el: select });
		});
		var search = document.createElement('input');
		search.type = 'search';
		search.placeholder = 'filter rows';
		search.setAttribute('aria-label', 'filter rows by any text');
		bar.appendChild(search);
		var count = document.createElement('span');
		count.className = 'count';
		bar.appendChild(count);
		function apply() {
			var words = search.value.trim().toLowerCase(), shown = 0;
			Array.prototype.forEach.call(body.rows, function (r) {
				var keep = selects.every(function (s) { return s.el.value === '' || filterValue(r.cells[s.col]) === s.el.value; });
				if (keep && words)
					keep = r.textContent.toLowerCase().indexOf(words) >= 0;
				r.hidden = !keep;
				shown += keep ? 1 : 0;
			});
			count.textContent = shown + ' of ' + body.rows.length + ' rows';
		}
		selects.forEach(function (s) { s.el.addEventListener('change', apply); });
		search.addEventListener('input', apply);
		apply();
		var holder = table.closest('.table-wrap') || table;
		holder.parentNode.insertBefore(bar, holder);
	}

	document.querySelectorAll('table.sortable').forEach(makeSortable);
	document.querySelectorAll('table.filterable').forEach(makeFilters);
})();
