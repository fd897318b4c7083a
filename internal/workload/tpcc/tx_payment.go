package tpcc

import (
	"context"
	"fmt"
	"strconv"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload"
)

// Payment, clause 2.5.

// maxCData is c_data's length: a BC customer's new c_data is cut to it.
const maxCData = 500

// payment runs a Payment (clause 2.5.1 input, drawPayment; 2.5.2 profile)
// from the client.
func (v *vu) payment(ctx context.Context, m workload.Meter) error {
	in := v.drawPayment()
	w, d, cw, cd, cid, amount, date := in.w, in.d, in.cw, in.cd, in.cid, in.amount, in.date
	if err := v.begin(ctx, true); err != nil {
		return err
	}
	if _, err := v.st.payWareUpdate.Exec(ctx, amount, w); err != nil {
		return v.abort(ctx, err)
	}
	var wName, wStreet1, wStreet2, wCity, wState, wZip string
	if err := v.st.payWare.QueryRow(ctx, v.argv(w), &wName, &wStreet1, &wStreet2, &wCity, &wState, &wZip); err != nil {
		return v.abort(ctx, fmt.Errorf("payment: warehouse %d: %w", w, err))
	}
	if _, err := v.st.payDistUpdate.Exec(ctx, amount, w, d); err != nil {
		return v.abort(ctx, err)
	}
	var dName, dStreet1, dStreet2, dCity, dState, dZip string
	if err := v.st.payDist.QueryRow(ctx, v.argv(w, d), &dName, &dStreet1, &dStreet2, &dCity, &dState, &dZip); err != nil {
		return v.abort(ctx, fmt.Errorf("payment: district %d/%d: %w", w, d, err))
	}
	if in.byName {
		var err error
		if cid, err = v.customerByName(ctx, cw, cd, in.nameNum); err != nil {
			return v.abort(ctx, err)
		}
	}
	var first, middle, last, street1, street2, city, state, zip, phone, since, credit string
	var creditLim, discount, balance float64
	if err := v.st.payCust.QueryRow(ctx, v.argv(cw, cd, cid), &first, &middle, &last, &street1, &street2,
		&city, &state, &zip, &phone, &since, &credit, &creditLim, &discount, &balance); err != nil {
		return v.abort(ctx, fmt.Errorf("payment: customer %d/%d/%d: %w", cw, cd, cid, err))
	}
	if credit == "BC" {
		// Clause 2.5.2.2: prepend the payment to c_data, keep 500 characters.
		// A locking read: under REPEATABLE READ (MySQL) a plain read would
		// return the snapshot from before this transaction waited for the
		// customer's lock, losing a concurrent Payment's entry.
		var data string
		if err := v.st.payCustData.QueryRow(ctx, v.argv(cw, cd, cid), &data); err != nil {
			return v.abort(ctx, err)
		}
		b := v.tbuf[:0]
		for _, n := range [...]int64{cid, cd, cw, d, w} {
			b = strconv.AppendInt(b, n, 10)
			b = append(b, ' ')
		}
		b = strconv.AppendFloat(b, amount, 'f', 2, 64)
		b = append(b, " | "...)
		b = append(b, data...)
		if len(b) > maxCData {
			b = b[:maxCData]
		}
		v.tbuf = b
		if _, err := v.st.payCustBC.Exec(ctx, amount, amount, string(b), cw, cd, cid); err != nil {
			return v.abort(ctx, err)
		}
	} else if _, err := v.st.payCustUpdate.Exec(ctx, amount, amount, cw, cd, cid); err != nil {
		return v.abort(ctx, err)
	}
	// h_data: w_name, four spaces, d_name (clause 2.5.2.2).
	hData := wName + "    " + dName
	if _, err := v.st.payHistory.Exec(ctx, cid, cd, cw, d, w, date, amount, hData); err != nil {
		return v.abort(ctx, err)
	}
	if err := v.conn.Commit(ctx); err != nil {
		return v.abort(ctx, err)
	}
	in.count(m)
	return nil
}

// paymentInput is a Payment's input (clause 2.5.1), drawn by the terminal
// in either mode.
type paymentInput struct {
	w, d, cw, cd int64 // home warehouse and district, the customer's
	cid, nameNum int64 // the customer's id, or (byName) the number of its last name
	remote       bool
	byName       bool
	amount       float64
	date         string
}

// drawPayment draws a Payment's input: 85 % of payments are by a customer
// of the home warehouse's district, 15 % by a customer of another warehouse
// (when W > 1); 60 % select the customer by last name, 40 % by id.
func (v *vu) drawPayment() paymentInput {
	in := paymentInput{w: v.w, d: v.src.Uniform(1, districtsPerWarehouse)}
	in.cw, in.cd = in.w, in.d
	in.remote = v.wares > 1 && v.src.Uniform(1, 100) > 85
	if in.remote {
		in.cw, in.cd = v.otherWarehouse(), v.src.Uniform(1, districtsPerWarehouse)
	}
	in.byName = v.src.Uniform(1, 100) <= 60
	if in.byName {
		in.nameNum = v.k.LastNameNumber(v.src)
	} else {
		in.cid = v.k.CustomerID(v.src)
	}
	in.amount = cents(v.src, 100, 500000)
	in.date = v.now()
	return in
}

// count counts a completed Payment's remote and by-name shares.
func (in *paymentInput) count(m workload.Meter) {
	if in.remote {
		m.Count(cntRemotePayments, 1)
	}
	if in.byName {
		m.Count(cntPaymentByName, 1)
	}
}

// customerByName returns the id of the customer at position n/2 rounded up
// (1-based) among the n customers of the district with the last name of
// nameNum, sorted by c_first (clause 2.5.2.2, 2.6.2.2). The caller then
// reads that customer's row by id.
func (v *vu) customerByName(ctx context.Context, w, d, nameNum int64) (int64, error) {
	name := string(AppendLastName(v.tbuf[:0], nameNum))
	rows, err := v.st.custByName.Query(ctx, w, d, name)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	ids := v.no.ids[:0] // reuse New-Order's id buffer
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return 0, err
		}
		ids = append(ids, id)
	}
	v.no.ids = ids
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, fmt.Errorf("%w: no customer named %s in district %d/%d", dialect.ErrNoRows, name, w, d)
	}
	return ids[(len(ids)+1)/2-1], rows.Close()
}
