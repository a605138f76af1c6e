// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title AuthorizationSettler
/// @notice Settles many EIP-3009 authorizations of one token to one payee in one call, with as little calldata and
/// per-item work as the token allows: each item is a packed `transferWithAuthorization`, forwarded from one reused
/// memory buffer; an item that reverts does not revert the others, unless it may have run out of gas. It holds
/// nothing, stores nothing and emits nothing of its own: the signatures authorize the transfers, so anyone may call it.
contract AuthorizationSettler {
    /// @dev Bytes per item: from (20) | value (16) | validAfter (6) | validBefore (6) | nonce (32) | v (1) | r (32) | s (32).
    uint256 private constant ITEM = 145;

    /// @notice The items were not a whole number of packed authorizations, or more than 256.
    error MalformedItems();

    /// @notice With `strict`, an item reverted (bit i set for item i): what a gas estimate runs, so that every item counts.
    error ItemsFailed(uint256 failed);

    /// @notice Item `item` reverted with less than an eighth of the gas it started with left: it may have been starved
    /// (each call level keeps only 1/64 back), which is no verdict on the item, so nothing is settled and the caller
    /// sends again with more gas. A transaction sent with a gas budget rather than an estimate relies on this.
    error ItemStarved(uint256 item);

    /// @notice Calls `token.transferWithAuthorization(from, to, value, validAfter, validBefore, nonce, v, r, s)` for
    /// every packed item. With `strict`, any failed item reverts the whole call (for estimates: an item starved of gas
    /// must not pass for a cheap success); without, only an item that may have been starved does (`ItemStarved`).
    /// @return failed Bit i is set when item i reverted.
    function settle(address token, address to, bytes calldata items, bool strict) external returns (uint256 failed) {
        uint256 count = items.length / ITEM;
        if (items.length != count * ITEM || count > 256) revert MalformedItems();
        bytes4 starved = ItemStarved.selector;
        assembly ("memory-safe") {
            let call_ := mload(0x40)
            // transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)
            mstore(call_, shl(224, 0xe3ee160e))
            mstore(add(call_, 0x24), to)
            for { let i := 0 } lt(i, count) { i := add(i, 1) } {
                let item := add(items.offset, mul(i, ITEM))
                mstore(add(call_, 0x04), shr(96, calldataload(item)))
                mstore(add(call_, 0x44), shr(128, calldataload(add(item, 20))))
                mstore(add(call_, 0x64), shr(208, calldataload(add(item, 36))))
                mstore(add(call_, 0x84), shr(208, calldataload(add(item, 42))))
                mstore(add(call_, 0xa4), calldataload(add(item, 48)))
                mstore(add(call_, 0xc4), shr(248, calldataload(add(item, 80))))
                mstore(add(call_, 0xe4), calldataload(add(item, 81)))
                mstore(add(call_, 0x104), calldataload(add(item, 113)))
                let before := gas()
                if iszero(call(gas(), token, 0, call_, 0x124, 0, 0)) {
                    if lt(mul(gas(), 8), before) {
                        mstore(0, starved)
                        mstore(4, i)
                        revert(0, 0x24)
                    }
                    failed := or(failed, shl(i, 1))
                }
            }
        }
        if (strict && failed != 0) revert ItemsFailed(failed);
    }
}
