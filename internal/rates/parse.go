package rates

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"time"

	"github.com/shopspring/decimal"
	"go.yaml.in/yaml/v3"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
	"github.com/svcrecon/svcrecon/internal/yamlfile"
)

// ParseError is a mistake in a rate card, at a line.
type ParseError = yamlfile.Error

// Load reads and parses the rate card at path. Errors are *ParseError
// (file:line: reason) or the error reading the file. A file that is not a
// regular file, or beyond its budget (budget.SettingsFile in all,
// budget.SettingsLine a line), is a *ParseError, before it is parsed.
func Load(path string) (*Card, error) {
	data, err := yamlfile.Read(path, "a rate card")
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// The keys of the file.
var (
	topKeys   = []string{"tolerance", "products", "operations"}
	priceKeys = []string{"from", "charge", "percent", "min", "max", "onTopOf", "surcharge", "cashback", "tds"}
)

// Parse parses a rate card (name is its path, for errors and Card.Path).
// The format:
//
//	tolerance: "0.00"          # optional, in rupees
//	products:
//	  PANV2: {charge: "2.50"}                              # a fixed charge per debit
//	  PANV2/PANV201: {charge: "2.00"}                      # a sub-product: wins over PANV2
//	  UPIC: {percent: "1.5", min: "1.00", max: "25.00"}    # a share of orderValue, bounded
//	  DMT/IMPS: {charge: "5.90", onTopOf: orderValue}      # the debit is orderValue + 5.90
//	  LITG:                                                # a price that changed mid-month
//	    - {from: 2026-10-01, charge: "14.00"}
//	    - {from: 2026-10-15, charge: "15.00"}
//	  IDV: {charge: "3.54", surcharge: "0.00", cashback: "0.50", tds: "5"}
//	operations:                # optional: bulkrun's expected debit per operation
//	  verifyPanPlusV2: PANV2
//
// Every mistake is a *ParseError with the line at fault: an unknown key, a
// key given twice, a product with both charge and percent (or neither),
// min or max without percent, min above max, an amount that is no plain
// decimal ("2.50", not 2.5e0 or -1) or beyond the bound of an amount
// (recon.CheckAmount), a percent above 100, a from that is no date, a list
// whose from days are missing, repeated (two prices on one day) or out of
// order, an operation unknown or naming a product not listed.
func Parse(name string, data []byte) (*Card, error) {
	p := parser{Reader: yamlfile.Reader{Name: name}}
	root, err := p.Root(data, "a products: mapping")
	if err != nil {
		return nil, err
	}
	c, err := p.card(root)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	c.Path, c.SHA256 = name, hex.EncodeToString(sum[:])
	return c, nil
}

type parser struct{ yamlfile.Reader }

// card reads the top level.
func (p *parser) card(root *yaml.Node) (*Card, error) {
	kvs, err := p.Mapping(root, "top level", topKeys...)
	if err != nil {
		return nil, err
	}
	c := &Card{products: map[string]*product{}, ops: map[string]string{}}
	var products, ops *yaml.Node
	for _, kv := range kvs {
		switch kv[0].Value {
		case "tolerance":
			if c.Tolerance, err = p.amount(kv[1], "tolerance"); err != nil {
				return nil, err
			}
		case "products":
			products = kv[1]
		case "operations":
			ops = kv[1]
		}
	}
	if products == nil {
		return nil, p.Errf(yamlfile.Deref(root).Line, "missing products: (a mapping of product codes to prices)")
	}
	if err := p.products(c, products); err != nil {
		return nil, err
	}
	if ops != nil {
		if err := p.operations(c, ops); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// productKeyRE is a product code, or a product code and a sub-product
// code: letters, digits and _ . - (no space, one /).
var productKeyRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)?$`)

func (p *parser) products(c *Card, n *yaml.Node) error {
	kvs, err := p.Mapping(n, "products")
	if err != nil {
		return err
	}
	if len(kvs) == 0 {
		return p.Errf(n.Line, "products: no products")
	}
	for _, kv := range kvs {
		key := kv[0].Value
		if !productKeyRE.MatchString(key) {
			return p.Errf(kv[0].Line, "products: %q: want a product code, or CODE/SUBCODE for a sub-product", key)
		}
		prod, err := p.product(key, kv[1])
		if err != nil {
			return err
		}
		c.products[key] = prod
		c.keys = append(c.keys, key)
	}
	return nil
}

// product reads a product's price: one mapping, or a list of mappings
// each with a from day, in order.
func (p *parser) product(key string, n *yaml.Node) (*product, error) {
	prod := &product{key: key}
	if n.Kind != yaml.SequenceNode {
		pr, err := p.price(key, n)
		if err != nil {
			return nil, err
		}
		prod.prices = []*Price{pr}
		return prod, nil
	}
	if len(n.Content) == 0 {
		return nil, p.Errf(n.Line, "%s: an empty list: want prices, each with its from day", key)
	}
	for _, item := range n.Content {
		pr, err := p.price(key, yamlfile.Deref(item))
		if err != nil {
			return nil, err
		}
		if pr.From == "" {
			return nil, p.Errf(pr.Line, "%s: a price of a list needs its from day (YYYY-MM-DD)", key)
		}
		if k := len(prod.prices); k > 0 {
			prev := prod.prices[k-1]
			switch {
			case pr.From == prev.From:
				return nil, p.Errf(pr.Line, "%s: two prices from %s (the other on line %d): they overlap", key, pr.From, prev.Line)
			case pr.From < prev.From:
				return nil, p.Errf(pr.Line, "%s: from %s comes after from %s (line %d): list the prices in date order", key, pr.From, prev.From, prev.Line)
			}
		}
		prod.prices = append(prod.prices, pr)
	}
	return prod, nil
}

// price reads one price mapping.
func (p *parser) price(key string, n *yaml.Node) (*Price, error) {
	kvs, err := p.Mapping(n, key, priceKeys...)
	if err != nil {
		return nil, err
	}
	pr := &Price{Key: key, Line: n.Line}
	lines := map[string]int{}
	for _, kv := range kvs {
		if err := p.priceField(pr, key, kv[0].Value, kv[1]); err != nil {
			return nil, err
		}
		lines[kv[0].Value] = kv[0].Line
	}
	return pr, p.checkPrice(pr, key, lines)
}

// priceField reads one key of a price.
func (p *parser) priceField(pr *Price, key, name string, v *yaml.Node) error {
	what := key + ": " + name
	var err error
	switch name {
	case "from":
		pr.From, err = p.day(v, what)
	case "onTopOf":
		if v.Kind != yaml.ScalarNode || v.Value != OnTopOfOrderValue {
			return p.Errf(v.Line, "%s: want %s (the debit is the order's value plus the price), got %s", what, OnTopOfOrderValue, yamlfile.KindName(v))
		}
		pr.OnTopOf = v.Value
	case "percent", "tds":
		var d decimal.Decimal
		if d, err = p.amount(v, what); err == nil && d.GreaterThan(hundred) {
			err = p.Errf(v.Line, "%s: %s%% is above 100%%", what, v.Value)
		}
		if name == "percent" {
			pr.Percent = &d
		} else {
			pr.TDS = &d
		}
	default: // charge, min, max, surcharge, cashback
		var d decimal.Decimal
		d, err = p.amount(v, what)
		*amountField(pr, name) = &d
	}
	return err
}

// amountField is the field of a price that key name sets: charge, min,
// max, surcharge or cashback.
func amountField(pr *Price, name string) **decimal.Decimal {
	switch name {
	case "charge":
		return &pr.Charge
	case "min":
		return &pr.Min
	case "max":
		return &pr.Max
	case "surcharge":
		return &pr.Surcharge
	}
	return &pr.Cashback
}

// checkPrice checks that a price is one rule: a charge, or a percent with
// its bounds in order. lines are the lines of its keys.
func (p *parser) checkPrice(pr *Price, key string, lines map[string]int) error {
	switch {
	case pr.Charge != nil && pr.Percent != nil:
		return p.Errf(max(lines["charge"], lines["percent"]), "%s: both charge and percent: give one (a fixed charge, or a share of orderValue)", key)
	case pr.Charge == nil && pr.Percent == nil:
		return p.Errf(pr.Line, "%s: no price: give charge (a fixed charge) or percent (a share of orderValue, with min and max)", key)
	case pr.Charge != nil && (pr.Min != nil || pr.Max != nil):
		return p.Errf(max(lines["min"], lines["max"]), "%s: min and max bound a percent, not a fixed charge", key)
	case pr.Min != nil && pr.Max != nil && pr.Min.GreaterThan(*pr.Max):
		return p.Errf(lines["max"], "%s: min %s is above max %s", key, recon.Money(*pr.Min), recon.Money(*pr.Max))
	case pr.TDS != nil && pr.Cashback == nil:
		return p.Errf(lines["tds"], "%s: tds is a rate on txnCashback: give the cashback it applies to too", key)
	}
	return nil
}

// plainAmountRE is a plain non-negative decimal: digits, and decimals.
var plainAmountRE = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// amount reads a non-negative amount, quoted or not ("2.50" or 2.50),
// exactly as written, within the bound of an amount.
func (p *parser) amount(n *yaml.Node, what string) (decimal.Decimal, error) {
	if n.Kind != yaml.ScalarNode || !plainAmountRE.MatchString(n.Value) {
		return decimal.Zero, p.Errf(n.Line, "%s: want an amount such as \"2.50\" (digits, a point, decimals; not negative), got %s", what, yamlfile.KindName(n))
	}
	d, err := decimal.NewFromString(n.Value)
	if err == nil {
		err = recon.CheckAmount(d)
	}
	if err != nil {
		return decimal.Zero, p.Errf(n.Line, "%s: %s: %v", what, n.Value, err)
	}
	return d, nil
}

// day reads a date, YYYY-MM-DD (quoted or not).
func (p *parser) day(n *yaml.Node, what string) (string, error) {
	if n.Kind == yaml.ScalarNode {
		if _, err := time.Parse(time.DateOnly, n.Value); err == nil {
			return n.Value, nil
		}
	}
	return "", p.Errf(n.Line, "%s: want a day YYYY-MM-DD (IST), got %s", what, yamlfile.KindName(n))
}

// operations reads which product key each operation debits (bulkrun).
func (p *parser) operations(c *Card, n *yaml.Node) error {
	kvs, err := p.Mapping(n, "operations")
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		op, v := kv[0].Value, kv[1]
		if _, ok := svcapi.Lookup(op); !ok {
			return p.Errf(kv[0].Line, "operations: unknown operation %q", op)
		}
		if v.Kind != yaml.ScalarNode || c.products[v.Value] == nil {
			return p.Errf(v.Line, "operations: %s: want a product key listed under products, got %s", op, yamlfile.KindName(v))
		}
		c.ops[op] = v.Value
	}
	return nil
}
