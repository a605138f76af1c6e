// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC2612, IPermit2SignatureTransfer} from "IPermit2.sol";

/// @title X402UptoPermit2Proxy
/// @notice Our implementation of the ABI, witness type and rules of x402's `upto` proxy (coinbase/x402
///         `contracts/evm/src/x402UptoPermit2Proxy.sol`), for the devnet, where it is placed at the canonical
///         address 0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002 from genesis. The payer signs a Permit2
///         `PermitWitnessTransferFrom` whose spender is this proxy and whose witness names the payee (`to`), the one
///         facilitator allowed to settle it and the earliest settlement time; that facilitator then settles any
///         amount up to the permitted one, once.
/// @dev Permit2 is the constant canonical address, not an immutable, so the runtime code works wherever it is placed.
contract X402UptoPermit2Proxy {
    /// @notice Payee, the only caller allowed to settle, and the earliest settlement time (unix seconds).
    struct Witness {
        address to;
        address facilitator;
        uint256 validAfter;
    }

    /// @notice EIP-2612 permit parameters for Permit2 as spender.
    struct EIP2612Permit {
        uint256 value;
        uint256 deadline;
        bytes32 r;
        bytes32 s;
        uint8 v;
    }

    /// @notice Permit2's canonical address.
    IPermit2SignatureTransfer public constant PERMIT2 =
        IPermit2SignatureTransfer(0x000000000022D473030F116dDEE9F6B43aC78BA3);

    /// @notice The witness part of Permit2's type string.
    string public constant WITNESS_TYPE_STRING =
        "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,address facilitator,uint256 validAfter)";

    /// @notice EIP-712 typehash of the witness.
    bytes32 public constant WITNESS_TYPEHASH = keccak256("Witness(address to,address facilitator,uint256 validAfter)");

    uint256 private locked;

    event Settled();
    event SettledWithPermit();
    event EIP2612PermitFailedWithReason(address indexed token, address indexed owner, string reason);
    event EIP2612PermitFailedWithPanic(address indexed token, address indexed owner, uint256 errorCode);
    event EIP2612PermitFailedWithData(address indexed token, address indexed owner, bytes data);

    error InvalidDestination();
    error PaymentTooEarly();
    error InvalidOwner();
    error InvalidAmount();
    error Permit2612AmountMismatch();
    error UnauthorizedFacilitator();
    error AmountExceedsPermitted();
    error ReentrancyGuardReentrantCall();

    modifier nonReentrant() {
        if (locked == 1) revert ReentrancyGuardReentrantCall();
        locked = 1;
        _;
        locked = 0;
    }

    /// @notice Moves `amount` (at most the permitted amount) from `owner` to `witness.to`; only `witness.facilitator` may.
    function settle(
        IPermit2SignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        if (amount > permit.permitted.amount) revert AmountExceedsPermitted();
        if (msg.sender != witness.facilitator) revert UnauthorizedFacilitator();
        _settle(permit, amount, owner, witness, signature);
        emit Settled();
    }

    /// @notice The same, after submitting the payer's EIP-2612 permit that approves Permit2 (it may fail harmlessly
    ///         when the approval already exists).
    function settleWithPermit(
        EIP2612Permit calldata permit2612,
        IPermit2SignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        if (amount > permit.permitted.amount) revert AmountExceedsPermitted();
        if (msg.sender != witness.facilitator) revert UnauthorizedFacilitator();
        if (permit2612.value != permit.permitted.amount) revert Permit2612AmountMismatch();
        address token = permit.permitted.token;
        try IERC2612(token).permit(
            owner, address(PERMIT2), permit2612.value, permit2612.deadline, permit2612.v, permit2612.r, permit2612.s
        ) {}
        catch Error(string memory reason) {
            emit EIP2612PermitFailedWithReason(token, owner, reason);
        } catch Panic(uint256 errorCode) {
            emit EIP2612PermitFailedWithPanic(token, owner, errorCode);
        } catch (bytes memory data) {
            emit EIP2612PermitFailedWithData(token, owner, data);
        }
        _settle(permit, amount, owner, witness, signature);
        emit SettledWithPermit();
    }

    function _settle(
        IPermit2SignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) private {
        if (amount == 0) revert InvalidAmount();
        if (owner == address(0)) revert InvalidOwner();
        if (witness.to == address(0)) revert InvalidDestination();
        if (block.timestamp < witness.validAfter) revert PaymentTooEarly();
        bytes32 witnessHash = keccak256(abi.encode(WITNESS_TYPEHASH, witness.to, witness.facilitator, witness.validAfter));
        PERMIT2.permitWitnessTransferFrom(
            permit,
            IPermit2SignatureTransfer.SignatureTransferDetails({to: witness.to, requestedAmount: amount}),
            owner,
            witnessHash,
            WITNESS_TYPE_STRING,
            signature
        );
    }
}
