// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC2612, IPermit2SignatureTransfer} from "IPermit2.sol";

/// @notice The ERC-20 functions the channel contract calls.
interface IChannelToken {
    function balanceOf(address account) external view returns (uint256);
    function transfer(address to, uint256 value) external returns (bool);
}

/// @notice A deposit collector moves `amount` of `token` from `payer` to the channel contract (msg.sender).
interface IDepositCollector {
    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata data) external;
}

/// @title X402BatchSettlement
/// @notice Our implementation of the ABI, EIP-712 types and rules of x402's `batch-settlement` EVM contract
///         (coinbase/x402 `contracts/evm/src/x402BatchSettlement.sol`), for the devnet, where it is placed at the
///         canonical address 0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003 from genesis. Unidirectional channels:
///         a payer deposits once through a collector, signs cumulative `Voucher(channelId, maxClaimableAmount)`s
///         off chain, and the receiver claims them in batches (`claimWithSignature`, authorized by the channel's
///         `receiverAuthorizer` over a `ClaimBatch`), then moves claimed funds out with the permissionless
///         `settle(receiver, token)`. What is not claimed returns to the payer: cooperatively (`refundWithSignature`)
///         or after `withdrawDelay` (`initiateWithdraw`, then `finalizeWithdraw`).
/// @dev No constructor and no immutables: the EIP-712 domain is computed from `block.chainid` and `address(this)`,
///      so the runtime code works wherever it is placed. Signatures are 65-byte ECDSA from EOAs (no ERC-1271).
///      Checks-effects-interactions throughout and a reentrancy lock on every state-changing entry point.
contract X402BatchSettlement {
    /// @notice The immutable terms of a channel; its id is the EIP-712 hash of this struct.
    struct ChannelConfig {
        address payer;
        address payerAuthorizer;
        address receiver;
        address receiverAuthorizer;
        address token;
        uint40 withdrawDelay;
        bytes32 salt;
    }

    /// @notice A cumulative voucher as claimed: the channel's config and the ceiling the payer signed.
    struct Voucher {
        ChannelConfig channel;
        uint128 maxClaimableAmount;
    }

    /// @notice One claim: a signed voucher and the channel's new cumulative claimed total (at most the ceiling).
    struct VoucherClaim {
        Voucher voucher;
        bytes signature;
        uint128 totalClaimed;
    }

    /// @notice Money in a channel: `balance` deposited (less refunds and withdrawals) and `totalClaimed` of it.
    struct Channel {
        uint128 balance;
        uint128 totalClaimed;
    }

    /// @notice A payer's withdrawal request, final after the channel's withdraw delay.
    struct PendingWithdrawal {
        uint128 amount;
        uint40 initiatedAt;
    }

    /// @notice What a receiver has claimed and settled of a token across its channels.
    struct ReceiverTotals {
        uint128 totalClaimed;
        uint128 totalSettled;
    }

    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 public constant CHANNEL_CONFIG_TYPEHASH = keccak256(
        "ChannelConfig(address payer,address payerAuthorizer,address receiver,address receiverAuthorizer,address token,uint40 withdrawDelay,bytes32 salt)"
    );
    bytes32 private constant VOUCHER_TYPEHASH = keccak256("Voucher(bytes32 channelId,uint128 maxClaimableAmount)");
    bytes32 private constant REFUND_TYPEHASH = keccak256("Refund(bytes32 channelId,uint256 nonce,uint128 amount)");
    bytes32 private constant CLAIM_ENTRY_TYPEHASH =
        keccak256("ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)");
    bytes32 private constant CLAIM_BATCH_TYPEHASH = keccak256(
        "ClaimBatch(ClaimEntry[] claims)ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)"
    );
    uint40 private constant MIN_WITHDRAW_DELAY = 900;
    uint40 private constant MAX_WITHDRAW_DELAY = 30 days;

    mapping(bytes32 => Channel) public channels;
    mapping(bytes32 => PendingWithdrawal) public pendingWithdrawals;
    mapping(address => mapping(address => ReceiverTotals)) public receivers;
    mapping(bytes32 => uint256) public refundNonce;
    uint256 private locked;

    event Deposited(bytes32 indexed channelId, address indexed payer, uint128 amount);
    event Claimed(bytes32 indexed channelId, address indexed receiver, uint128 totalClaimed, uint128 amount);
    event Settled(address indexed receiver, address indexed token, address indexed sender, uint128 amount);
    event Refunded(bytes32 indexed channelId, address indexed payer, uint128 amount, uint256 nonce);
    event WithdrawInitiated(bytes32 indexed channelId, uint128 amount, uint40 initiatedAt);
    event Withdrawn(bytes32 indexed channelId, address indexed payer, uint128 amount);

    modifier nonReentrant() {
        require(locked == 0, "reentrant");
        locked = 1;
        _;
        locked = 0;
    }

    /// @notice Runs several calls of this contract in one transaction (OpenZeppelin `Multicall` semantics).
    function multicall(bytes[] calldata data) external returns (bytes[] memory results) {
        results = new bytes[](data.length);
        for (uint256 i = 0; i < data.length; i++) {
            (bool ok, bytes memory result) = address(this).delegatecall(data[i]);
            if (!ok) {
                assembly {
                    revert(add(result, 32), mload(result))
                }
            }
            results[i] = result;
        }
    }

    /// @notice Deposits `amount` into the channel of `config` through `collector`, which must deliver exactly it.
    function deposit(ChannelConfig calldata config, uint128 amount, address collector, bytes calldata collectorData)
        external
        nonReentrant
    {
        require(amount > 0, "zero deposit");
        require(
            config.withdrawDelay >= MIN_WITHDRAW_DELAY && config.withdrawDelay <= MAX_WITHDRAW_DELAY, "withdraw delay"
        );
        require(config.receiverAuthorizer != address(0), "receiver authorizer");
        bytes32 channelId = getChannelId(config);
        uint256 before = IChannelToken(config.token).balanceOf(address(this));
        IDepositCollector(collector).collect(config.payer, config.token, amount, channelId, collectorData);
        require(IChannelToken(config.token).balanceOf(address(this)) == before + amount, "collector delivered");
        channels[channelId].balance += amount;
        emit Deposited(channelId, config.payer, amount);
    }

    /// @notice Claims vouchers; the caller must be every claim's receiver authorizer.
    function claim(VoucherClaim[] calldata voucherClaims) external nonReentrant {
        for (uint256 i = 0; i < voucherClaims.length; i++) {
            require(msg.sender == voucherClaims[i].voucher.channel.receiverAuthorizer, "not receiver authorizer");
        }
        _claim(voucherClaims);
    }

    /// @notice Claims vouchers with the receiver authorizer's EIP-712 `ClaimBatch` signature; anyone may submit.
    function claimWithSignature(VoucherClaim[] calldata voucherClaims, bytes calldata authorizerSignature)
        external
        nonReentrant
    {
        require(voucherClaims.length > 0, "no claims");
        address signer = _recover(getClaimBatchDigest(voucherClaims), authorizerSignature);
        for (uint256 i = 0; i < voucherClaims.length; i++) {
            require(signer == voucherClaims[i].voucher.channel.receiverAuthorizer, "authorizer signature");
        }
        _claim(voucherClaims);
    }

    /// @notice Pays a receiver what it has claimed and not yet settled of `token`; anyone may call.
    function settle(address receiver, address token) external nonReentrant {
        ReceiverTotals storage totals = receivers[receiver][token];
        uint128 amount = totals.totalClaimed - totals.totalSettled;
        require(amount > 0, "nothing to settle");
        totals.totalSettled = totals.totalClaimed;
        _pay(token, receiver, amount);
        emit Settled(receiver, token, msg.sender, amount);
    }

    /// @notice Starts a withdrawal of up to `amount` of the unclaimed balance; final after the withdraw delay.
    function initiateWithdraw(ChannelConfig calldata config, uint128 amount) external nonReentrant {
        require(msg.sender == config.payer || msg.sender == config.payerAuthorizer, "not payer");
        bytes32 channelId = getChannelId(config);
        require(amount > 0, "zero withdrawal");
        pendingWithdrawals[channelId] = PendingWithdrawal(amount, uint40(block.timestamp));
        emit WithdrawInitiated(channelId, amount, uint40(block.timestamp));
    }

    /// @notice Pays the payer a requested withdrawal once the delay passed, capped at what is still unclaimed.
    function finalizeWithdraw(ChannelConfig calldata config) external nonReentrant {
        bytes32 channelId = getChannelId(config);
        PendingWithdrawal memory pending = pendingWithdrawals[channelId];
        require(pending.initiatedAt != 0, "no withdrawal");
        require(block.timestamp >= uint256(pending.initiatedAt) + config.withdrawDelay, "withdraw delay");
        delete pendingWithdrawals[channelId];
        Channel storage channel = channels[channelId];
        uint128 available = channel.balance - channel.totalClaimed;
        uint128 amount = pending.amount < available ? pending.amount : available;
        channel.balance -= amount;
        if (amount > 0) _pay(config.token, config.payer, amount);
        emit Withdrawn(channelId, config.payer, amount);
    }

    /// @notice Refunds up to `amount` of the unclaimed balance to the payer; the caller must be the receiver authorizer.
    function refund(ChannelConfig calldata config, uint128 amount) external nonReentrant {
        require(msg.sender == config.receiverAuthorizer, "not receiver authorizer");
        _refund(config, amount);
    }

    /// @notice Refunds with the receiver authorizer's EIP-712 `Refund(channelId, nonce, amount)`; anyone may submit.
    function refundWithSignature(
        ChannelConfig calldata config,
        uint128 amount,
        uint256 nonce,
        bytes calldata receiverAuthorizerSignature
    ) external nonReentrant {
        bytes32 channelId = getChannelId(config);
        require(nonce == refundNonce[channelId], "refund nonce");
        require(
            _recover(getRefundDigest(channelId, nonce, amount), receiverAuthorizerSignature)
                == config.receiverAuthorizer,
            "authorizer signature"
        );
        _refund(config, amount);
    }

    /// @notice The id of a channel: the EIP-712 hash of its config in this contract's domain.
    function getChannelId(ChannelConfig calldata config) public view returns (bytes32) {
        return _hashTypedData(
            keccak256(
                abi.encode(
                    CHANNEL_CONFIG_TYPEHASH,
                    config.payer,
                    config.payerAuthorizer,
                    config.receiver,
                    config.receiverAuthorizer,
                    config.token,
                    config.withdrawDelay,
                    config.salt
                )
            )
        );
    }

    /// @notice The EIP-712 digest a payer signs for a voucher.
    function getVoucherDigest(bytes32 channelId, uint128 maxClaimableAmount) public view returns (bytes32) {
        return _hashTypedData(keccak256(abi.encode(VOUCHER_TYPEHASH, channelId, maxClaimableAmount)));
    }

    /// @notice The EIP-712 digest a receiver authorizer signs for a cooperative refund.
    function getRefundDigest(bytes32 channelId, uint256 nonce, uint128 amount) public view returns (bytes32) {
        return _hashTypedData(keccak256(abi.encode(REFUND_TYPEHASH, channelId, nonce, amount)));
    }

    /// @notice The EIP-712 digest a receiver authorizer signs for a batch of claims.
    function getClaimBatchDigest(VoucherClaim[] calldata voucherClaims) public view returns (bytes32) {
        bytes32[] memory entries = new bytes32[](voucherClaims.length);
        for (uint256 i = 0; i < voucherClaims.length; i++) {
            entries[i] = keccak256(
                abi.encode(
                    CLAIM_ENTRY_TYPEHASH,
                    getChannelId(voucherClaims[i].voucher.channel),
                    voucherClaims[i].voucher.maxClaimableAmount,
                    voucherClaims[i].totalClaimed
                )
            );
        }
        return _hashTypedData(keccak256(abi.encode(CLAIM_BATCH_TYPEHASH, keccak256(abi.encodePacked(entries)))));
    }

    function _claim(VoucherClaim[] calldata voucherClaims) private {
        for (uint256 i = 0; i < voucherClaims.length; i++) {
            VoucherClaim calldata item = voucherClaims[i];
            ChannelConfig calldata config = item.voucher.channel;
            bytes32 channelId = getChannelId(config);
            address voucherSigner = config.payerAuthorizer == address(0) ? config.payer : config.payerAuthorizer;
            require(
                _recover(getVoucherDigest(channelId, item.voucher.maxClaimableAmount), item.signature)
                    == voucherSigner,
                "voucher signature"
            );
            require(item.totalClaimed <= item.voucher.maxClaimableAmount, "above voucher");
            Channel storage channel = channels[channelId];
            require(item.totalClaimed > channel.totalClaimed, "already claimed");
            require(item.totalClaimed <= channel.balance, "above balance");
            uint128 amount = item.totalClaimed - channel.totalClaimed;
            channel.totalClaimed = item.totalClaimed;
            receivers[config.receiver][config.token].totalClaimed += amount;
            emit Claimed(channelId, config.receiver, item.totalClaimed, amount);
        }
    }

    function _refund(ChannelConfig calldata config, uint128 amount) private {
        bytes32 channelId = getChannelId(config);
        Channel storage channel = channels[channelId];
        uint128 available = channel.balance - channel.totalClaimed;
        uint128 paid = amount < available ? amount : available;
        require(paid > 0, "nothing to refund");
        uint256 nonce = refundNonce[channelId];
        refundNonce[channelId] = nonce + 1;
        channel.balance -= paid;
        PendingWithdrawal storage pending = pendingWithdrawals[channelId];
        if (pending.initiatedAt != 0) pending.amount = pending.amount > paid ? pending.amount - paid : 0;
        _pay(config.token, config.payer, paid);
        emit Refunded(channelId, config.payer, paid, nonce);
    }

    function _pay(address token, address to, uint128 amount) private {
        (bool ok, bytes memory data) = token.call(abi.encodeCall(IChannelToken.transfer, (to, amount)));
        require(ok && (data.length == 0 || abi.decode(data, (bool))), "transfer failed");
    }

    function _hashTypedData(bytes32 structHash) private view returns (bytes32) {
        bytes32 domainSeparator = keccak256(
            abi.encode(
                DOMAIN_TYPEHASH, keccak256("x402 Batch Settlement"), keccak256("1"), block.chainid, address(this)
            )
        );
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator, structHash));
    }

    function _recover(bytes32 digest, bytes calldata signature) private pure returns (address signer) {
        require(signature.length == 65, "signature length");
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (v < 27) v += 27;
        require(uint256(s) <= 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0, "signature s");
        signer = ecrecover(digest, v, r, s);
        require(signer != address(0), "bad signature");
    }
}

/// @notice The EIP-3009 function the collector calls.
interface IReceiveWithAuthorization {
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external;
}

/// @title ERC3009DepositCollector
/// @notice Collects a channel deposit with the payer's EIP-3009 `ReceiveWithAuthorization` (payee: this collector),
///         whose nonce is `keccak256(abi.encode(channelId, salt))`, and forwards it to the channel contract. Placed at
///         the canonical 0x4020806089470a89826cB9fB1f4059150b550004 on the devnet. `collectorData` is
///         `abi.encode(uint256 validAfter, uint256 validBefore, uint256 salt, bytes signature)`, as the x402 SDK builds it.
/// @dev Only the canonical channel contract may call `collect`, so a signed authorization cannot be diverted.
contract ERC3009DepositCollector {
    address private constant SETTLEMENT = 0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003;

    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata data) external {
        require(msg.sender == SETTLEMENT, "only settlement");
        (uint256 validAfter, uint256 validBefore, uint256 salt, bytes memory signature) =
            abi.decode(data, (uint256, uint256, uint256, bytes));
        bytes32 nonce = keccak256(abi.encode(channelId, salt));
        IReceiveWithAuthorization(token).receiveWithAuthorization(
            payer, address(this), amount, validAfter, validBefore, nonce, signature
        );
        (bool ok, bytes memory result) = token.call(abi.encodeCall(IChannelToken.transfer, (SETTLEMENT, amount)));
        require(ok && (result.length == 0 || abi.decode(result, (bool))), "transfer failed");
    }
}

/// @title Permit2DepositCollector
/// @notice Collects a channel deposit with the payer's Permit2 `PermitWitnessTransferFrom` (spender: this collector,
///         witness: `DepositWitness(bytes32 channelId)`), straight into the channel contract. Placed at the canonical
///         0x4020425FAf3B746C082C2f942b4E5159887B0005 on the devnet. `collectorData` is `abi.encode(uint256 nonce,
///         uint256 deadline, bytes permit2Signature, bytes eip2612PermitData)`, as the x402 SDK builds it; a non-empty
///         `eip2612PermitData` (`abi.encode(value, deadline, v, r, s)`) first approves Permit2 with the token's permit.
/// @dev Only the canonical channel contract may call `collect`, so a signed permit cannot be diverted.
contract Permit2DepositCollector {
    address private constant SETTLEMENT = 0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003;
    address private constant PERMIT2 = 0x000000000022D473030F116dDEE9F6B43aC78BA3;
    bytes32 private constant DEPOSIT_WITNESS_TYPEHASH = keccak256("DepositWitness(bytes32 channelId)");
    string private constant WITNESS_TYPE_STRING =
        "DepositWitness witness)DepositWitness(bytes32 channelId)TokenPermissions(address token,uint256 amount)";

    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata data) external {
        require(msg.sender == SETTLEMENT, "only settlement");
        (uint256 nonce, uint256 deadline, bytes memory signature, bytes memory eip2612PermitData) =
            abi.decode(data, (uint256, uint256, bytes, bytes));
        if (eip2612PermitData.length > 0) _permit(payer, token, eip2612PermitData);
        IPermit2SignatureTransfer(PERMIT2).permitWitnessTransferFrom(
            IPermit2SignatureTransfer.PermitTransferFrom({
                permitted: IPermit2SignatureTransfer.TokenPermissions({token: token, amount: amount}),
                nonce: nonce,
                deadline: deadline
            }),
            IPermit2SignatureTransfer.SignatureTransferDetails({to: SETTLEMENT, requestedAmount: amount}),
            payer,
            keccak256(abi.encode(DEPOSIT_WITNESS_TYPEHASH, channelId)),
            WITNESS_TYPE_STRING,
            signature
        );
    }

    /// @dev Approves Permit2 with the token's EIP-2612 permit. One already used (front-run) leaves the allowance in
    ///      place, so its failure is ignored: the transfer decides.
    function _permit(address payer, address token, bytes memory data) private {
        (uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s) =
            abi.decode(data, (uint256, uint256, uint8, bytes32, bytes32));
        try IERC2612(token).permit(payer, PERMIT2, value, deadline, v, r, s) {} catch {}
    }
}
