// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice The ERC-20 functions the escrow calls.
interface IERC20Minimal {
    function balanceOf(address account) external view returns (uint256);
    function transfer(address to, uint256 value) external returns (bool);
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

/// @title Escrow
/// @notice Holds ERC-20 deposits until they are released to a beneficiary or cancelled back to the depositor.
///         The depositor or the arbiter releases; the depositor or the arbiter cancels, and once an escrow's expiry
///         is reached anyone may cancel it. Each escrow settles once.
/// @dev Reentrancy: every check and state change happens before the token is called (checks-effects-interactions)
///      and a settled escrow never becomes active again, so a reentrant token cannot pay one escrow out twice.
///      Token calls accept tokens that return a bool and tokens that return nothing, like OpenZeppelin's
///      SafeERC20. Fee-on-transfer tokens are refused: a deposit reverts unless exactly `amount` arrived.
///      The gateway's `core/Escrow.ts` mirrors the roles, the expiry rule and the ABI; keep them in step.
contract Escrow {
    /// @notice Lifecycle of one escrow; `None` means the id was never used.
    enum Status {
        None,
        Active,
        Released,
        Cancelled
    }

    /// @notice One escrow. Fields are ordered for storage packing (depositor, expiry and status share a slot).
    struct Record {
        /// @notice Who deposited and gets the refund on cancel.
        address depositor;
        /// @notice Unix time (seconds) from which anyone may cancel; 0 for never.
        uint64 expiry;
        /// @notice Current status.
        Status status;
        /// @notice Who is paid on release.
        address beneficiary;
        /// @notice Who may release or cancel besides the depositor; the zero address for none.
        address arbiter;
        /// @notice The ERC-20 held.
        address token;
        /// @notice Amount held, in the token's atomic units.
        uint256 amount;
    }

    mapping(bytes32 => Record) private _escrows;

    /// @notice Escrow `id` took `amount` of `token` from `depositor`.
    event Deposited(
        bytes32 indexed id,
        address indexed depositor,
        address indexed beneficiary,
        address arbiter,
        address token,
        uint256 amount,
        uint64 expiry
    );
    /// @notice Escrow `id` paid `amount` to `beneficiary`; `by` sent the release.
    event Released(bytes32 indexed id, address indexed by, address indexed beneficiary, uint256 amount);
    /// @notice Escrow `id` refunded `amount` to `depositor`; `by` sent the cancel.
    event Cancelled(bytes32 indexed id, address indexed by, address indexed depositor, uint256 amount);

    /// @notice `id` is already in use (active or settled).
    error EscrowExists(bytes32 id);
    /// @notice Escrow `id` is not active: never deposited (`None`) or already settled.
    error EscrowNotActive(bytes32 id, Status status);
    /// @notice `caller` holds no role that allows this on escrow `id`.
    error NotAllowed(bytes32 id, address caller);
    /// @notice A deposit of zero.
    error ZeroAmount();
    /// @notice The token or the beneficiary is the zero address.
    error ZeroAddress();
    /// @notice A nonzero expiry that is not in the future.
    error ExpiryInPast(uint64 expiry);
    /// @notice The token refused or failed a call without a revert reason, returned false, or has no code.
    error TokenCallFailed(address token);
    /// @notice The escrow's balance grew by `received` instead of `expected` (a fee-on-transfer token).
    error AmountNotReceived(uint256 expected, uint256 received);

    /// @notice Escrow `id` as recorded; all zero with status `None` when it was never used.
    function escrows(bytes32 id) external view returns (Record memory) {
        return _escrows[id];
    }

    /// @notice Opens escrow `id`: takes `amount` of `token` from the caller (who must have approved this contract),
    ///         to be released to `beneficiary` or refunded to the caller.
    /// @param arbiter May release or cancel besides the depositor; the zero address for none.
    /// @param expiry Unix time (seconds) from which anyone may cancel; 0 for never.
    function deposit(bytes32 id, address token, uint256 amount, address beneficiary, address arbiter, uint64 expiry)
        external
    {
        if (_escrows[id].status != Status.None) revert EscrowExists(id);
        if (amount == 0) revert ZeroAmount();
        if (token == address(0) || beneficiary == address(0)) revert ZeroAddress();
        if (expiry != 0 && expiry <= block.timestamp) revert ExpiryInPast(expiry);

        _escrows[id] = Record({
            depositor: msg.sender,
            expiry: expiry,
            status: Status.Active,
            beneficiary: beneficiary,
            arbiter: arbiter,
            token: token,
            amount: amount
        });

        uint256 balanceBefore = _balanceOf(token);
        _callToken(token, abi.encodeCall(IERC20Minimal.transferFrom, (msg.sender, address(this), amount)));
        uint256 received = _balanceOf(token) - balanceBefore;
        if (received != amount) revert AmountNotReceived(amount, received);

        emit Deposited(id, msg.sender, beneficiary, arbiter, token, amount, expiry);
    }

    /// @notice Pays escrow `id` to its beneficiary. Only the depositor or the arbiter.
    function release(bytes32 id) external {
        Record storage escrow = _escrows[id];
        if (escrow.status != Status.Active) revert EscrowNotActive(id, escrow.status);
        if (msg.sender != escrow.depositor && msg.sender != escrow.arbiter) revert NotAllowed(id, msg.sender);

        escrow.status = Status.Released;
        (address token, address beneficiary, uint256 amount) = (escrow.token, escrow.beneficiary, escrow.amount);
        emit Released(id, msg.sender, beneficiary, amount);

        _callToken(token, abi.encodeCall(IERC20Minimal.transfer, (beneficiary, amount)));
    }

    /// @notice Refunds escrow `id` to its depositor. The depositor or the arbiter; anyone once the expiry is reached.
    function cancel(bytes32 id) external {
        Record storage escrow = _escrows[id];
        if (escrow.status != Status.Active) revert EscrowNotActive(id, escrow.status);
        bool expired = escrow.expiry != 0 && block.timestamp >= escrow.expiry;
        if (!expired && msg.sender != escrow.depositor && msg.sender != escrow.arbiter) {
            revert NotAllowed(id, msg.sender);
        }

        escrow.status = Status.Cancelled;
        (address token, address depositor, uint256 amount) = (escrow.token, escrow.depositor, escrow.amount);
        emit Cancelled(id, msg.sender, depositor, amount);

        _callToken(token, abi.encodeCall(IERC20Minimal.transfer, (depositor, amount)));
    }

    /// @dev Calls `token`; a revert is passed on with its reason, and success needs `true` or no return data from
    ///      an address that has code (a call to an address without code succeeds with no data).
    function _callToken(address token, bytes memory data) private {
        (bool success, bytes memory result) = token.call(data);
        if (!success) {
            if (result.length == 0) revert TokenCallFailed(token);
            assembly ("memory-safe") {
                revert(add(result, 32), mload(result))
            }
        }
        if (result.length == 0) {
            if (token.code.length == 0) revert TokenCallFailed(token);
        } else if (result.length != 32 || abi.decode(result, (uint256)) != 1) {
            revert TokenCallFailed(token);
        }
    }

    /// @dev The escrow's own balance of `token`.
    function _balanceOf(address token) private view returns (uint256) {
        (bool success, bytes memory result) =
            token.staticcall(abi.encodeCall(IERC20Minimal.balanceOf, (address(this))));
        if (!success || result.length < 32) revert TokenCallFailed(token);
        return abi.decode(result, (uint256));
    }
}
